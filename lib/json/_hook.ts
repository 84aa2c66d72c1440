// The JSON decoder as the Context sees it. lib/json/decode.ts installs itself here when it is
// loaded, so ctx.decode() works whenever the JSON module is part of the app, while apps that
// never decode JSON do not carry the decoder in their bundles (the npm package is
// side-effect-free for bundlers). mod.ts re-exports the JSON module, so unbundled apps always
// have it.
import type { DecodeResult } from "./json_error.ts";
import type { Infer, StandardSchemaV1 } from "./standard_schema.ts";

/** The signature of `json.decode`. */
export type DecodeFunction = <S extends StandardSchemaV1>(
  data: Uint8Array | string,
  target: S,
) => DecodeResult<Infer<S>>;

let installed: DecodeFunction | undefined;

/** Installs the decoder (called once by lib/json/decode.ts). */
export function installDecoder(decode: DecodeFunction): void {
  installed = decode;
}

/** The installed decoder; throws a clear TypeError when the JSON module is not loaded. */
export function jsonDecoder(): DecodeFunction {
  if (installed === undefined) {
    throw new TypeError(
      'Cannot decode JSON: the JSON module is not loaded; import { json } from "weft" (or "weft/json") once in the app',
    );
  }
  return installed;
}
