// How the Node adapter writes WebSocket messages: the bytes of a text frame are made once per
// text and tick and written as they are to every socket that sends that text (a broadcast
// sends the same string to each subscriber), and the sockets written to in one tick are corked
// until the tick ends, so that the messages a tick sends to one socket leave in one writev
// system call instead of one each. The system call per message and socket was half of the
// server's time in a fan-out (bench/realtime/run.ts).
//
// What a corked socket holds counts in its `bufferedAmount`, which topics.attach() compares
// with its high-water mark to find clients that stopped reading. So that a client that reads
// is not taken for one, a socket is written out as soon as it holds its writable high-water
// mark (16 KiB by default): the corked bytes stay below that plus one message.
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import process from "node:process";

// The last text framed in this tick and its frame. Cleared at the end of the tick, so that it
// holds no memory between ticks and compares only with the texts of one burst.
let lastText: string | undefined;
let lastFrame: Buffer | undefined;

// The sockets corked in this tick, uncorked together once the tick's work is done.
const corked = new Set<Socket>();
let flushing = false;

function flush(): void {
  flushing = false;
  lastText = undefined;
  lastFrame = undefined;
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/**
 * The bytes of an unmasked, unfragmented text frame (RFC 6455 §5.2) carrying `text`; the same
 * Buffer for the same text within one tick. Writers must not change it.
 */
export function textFrame(text: string): Buffer {
  if (text === lastText) return lastFrame!;
  const length = Buffer.byteLength(text);
  const frame = framed(0x81, length); // FIN, opcode 1 (text)
  frame.write(text, frame.length - length, "utf8");
  endOfTick();
  lastText = text;
  lastFrame = frame;
  return frame;
}

/**
 * The bytes of an unmasked, unfragmented binary frame carrying a copy of `data`: the caller may
 * change or reuse `data` as soon as send() returns, as with a WebSocket's send() (and on Deno),
 * although the socket holds what is written to it until the tick ends and the kernel took it.
 * Handed to `ws` instead, the bytes were not copied: a buffer filled anew for each of several
 * messages in one tick sent its last content several times.
 */
export function binaryFrame(data: Uint8Array): Buffer {
  const length = data.byteLength;
  const frame = framed(0x82, length); // FIN, opcode 2 (binary)
  frame.set(data, frame.length - length);
  return frame;
}

// A frame of `length` payload bytes with its header written: the first byte, then the length
// in 7, 7+16 or 7+64 bits.
function framed(first: number, length: number): Buffer {
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = first;
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  return frame;
}

function endOfTick(): void {
  if (flushing) return;
  flushing = true;
  process.nextTick(flush);
}

/**
 * Corks `socket` until the end of the current tick (once per tick), so that what is written
 * to it meanwhile leaves together.
 */
export function hold(socket: Socket): void {
  if (corked.has(socket)) return;
  endOfTick();
  socket.cork();
  corked.add(socket);
}

/** Writes out what `socket` holds once that reaches its writable high-water mark. */
export function spill(socket: Socket): void {
  if (socket.writableLength < socket.writableHighWaterMark) return;
  socket.uncork();
  socket.cork();
}
