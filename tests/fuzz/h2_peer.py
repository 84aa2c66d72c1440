"""The HTTP/2 side of the fuzzer: writes the raw bytes of a case to the server and decodes what
comes back with the frame parser and HPACK decoder of the python3 `h2` stack (hyperframe, hpack),
acting as a minimal well-behaved peer meanwhile (SETTINGS ACK, PING ACK, WINDOW_UPDATE).

Reads one JSON case per line on stdin, writes one JSON result per line on stdout:
  {"port": 8000, "bytes": "<hex>", "streams": [1, 3], "timeout": 2.0}
  -> {"closed", "timed_out", "goaway", "streams": {"1": {...}}, "error", "ms"}
Every case ends within its timeout; the script ends at the end of its input.
"""
import json
import socket
import struct
import sys
import time

from hpack import Decoder
from hyperframe.frame import (
    DataFrame,
    Frame,
    GoAwayFrame,
    HeadersFrame,
    ContinuationFrame,
    PingFrame,
    PushPromiseFrame,
    RstStreamFrame,
    SettingsFrame,
)


def frame_bytes(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


CANARIES = []


def run_case(case):
    CANARIES[:] = [c.encode() for c in case.get("canaries", [])]
    started = time.monotonic()
    deadline = started + float(case.get("timeout", 2.0))
    wanted = set(int(s) for s in case["streams"])
    streams = {}
    result = {"closed": False, "timed_out": False, "goaway": None, "streams": streams, "error": None}
    decoder = Decoder()
    decoder.max_allowed_table_size = 65536
    header_block = None  # (stream id, bytes) while CONTINUATION frames are expected
    sock = socket.create_connection(("127.0.0.1", int(case["port"])), timeout=1.0)
    try:
        try:
            sock.sendall(bytes.fromhex(case["bytes"]))
        except OSError:
            pass  # the server may close before reading everything; what it wrote still counts
        buffer = b""
        while True:
            done = all(
                s in streams and (streams[s]["ended"] or streams[s]["rst"] is not None) for s in wanted
            )
            if done:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                result["timed_out"] = True
                break
            sock.settimeout(min(left, 0.5))
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                result["closed"] = True
                break
            buffer += chunk
            while len(buffer) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(buffer[:9]), strict=False)
                if len(buffer) < 9 + length:
                    break
                frame.parse_body(memoryview(buffer[9 : 9 + length]))
                buffer = buffer[9 + length :]
                reply = handle(frame, streams, decoder, result, header_block)
                header_block = reply.get("header_block")
                for out in reply.get("send", []):
                    try:
                        sock.sendall(out)
                    except OSError:
                        pass
            if result["error"]:
                break
    except Exception as error:  # a frame or HPACK block the server should never have sent
        result["error"] = f"{type(error).__name__}: {error}"
    finally:
        sock.close()
    result["ms"] = (time.monotonic() - started) * 1000
    for state in streams.values():
        state.pop("_tail", None)
    return result


def stream_state(streams, stream_id):
    return streams.setdefault(
        stream_id,
        {"statuses": [], "content_length": None, "data": 0, "ended": False, "rst": None, "canary": False},
    )


def handle(frame, streams, decoder, result, header_block):
    send = []
    if header_block is not None and not isinstance(frame, ContinuationFrame):
        result["error"] = "server interleaved a frame inside a header block"
        return {}
    if isinstance(frame, SettingsFrame):
        if "ACK" not in frame.flags:
            send.append(frame_bytes(4, 1, 0))
    elif isinstance(frame, PingFrame):
        if "ACK" not in frame.flags:
            send.append(frame_bytes(6, 1, 0, bytes(frame.opaque_data)))
    elif isinstance(frame, GoAwayFrame):
        result["goaway"] = frame.error_code
    elif isinstance(frame, RstStreamFrame):
        stream_state(streams, frame.stream_id)["rst"] = frame.error_code
    elif isinstance(frame, (HeadersFrame, PushPromiseFrame, ContinuationFrame)):
        if isinstance(frame, PushPromiseFrame):
            result["error"] = "server sent PUSH_PROMISE"
            return {}
        block = (header_block[1] if header_block else b"") + bytes(frame.data)
        if "END_HEADERS" not in frame.flags:
            return {"send": send, "header_block": (frame.stream_id, block)}
        state = stream_state(streams, frame.stream_id)
        headers = decoder.decode(block, raw=False)
        names = [name for name, _ in headers]
        if names.count(":status") == 1:
            state["statuses"].append(int(dict(headers)[":status"]))
        elif not (state["statuses"] and ":status" not in names):  # trailers have no :status
            result["error"] = f"response header block with {names.count(':status')} :status fields"
        for name, value in headers:
            if name == "content-length":
                state["content_length"] = value
            if name != name.lower():
                result["error"] = f"upper-case header name {name!r}"
        if "END_STREAM" in frame.flags:
            state["ended"] = True
    elif isinstance(frame, DataFrame):
        state = stream_state(streams, frame.stream_id)
        state["data"] += len(frame.data)
        tail = state.pop("_tail", b"") + bytes(frame.data)
        if any(canary in tail for canary in CANARIES):
            state["canary"] = True
        state["_tail"] = tail[-64:]
        if "END_STREAM" in frame.flags:
            state["ended"] = True
        size = frame.flow_controlled_length
        if size:
            increment = struct.pack(">I", size)
            send.append(frame_bytes(8, 0, 0, increment))
            send.append(frame_bytes(8, 0, frame.stream_id, increment))
    return {"send": send}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out = run_case(json.loads(line))
        except OSError as error:
            out = {"closed": True, "timed_out": False, "goaway": None, "streams": {}, "error": None,
                   "connect_error": str(error), "ms": 0}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
