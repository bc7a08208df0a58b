/**
 * Compressed bodies for tests of decompression limits: lz-string streams that stand for far more
 * text than they hold (written bit by bit, as lz-string's own compressor would take minutes to reach
 * such sizes), and JSON events of an exact size in bytes.
 */

/** lz-string's base64 alphabet (`keyStrBase64`). */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * An lz-string base64 stream (`compressToBase64`'s format) of one literal `A` followed by `codes`
 * codes each naming the dictionary entry being defined (lz-string's "KwKwK" case), so that the n-th
 * code stands for n + 1 characters: about codes² / 2 characters of `A` in all, from about
 * codes × log2(codes) / 6 characters of input.
 */
export function lz64Bomb(codes: number): string {
  const out: string[] = [];
  let value = 0;
  let filled = 0;
  /** Writes `bits` bits of `code`, least significant first, six to a character (lz-string's order). */
  const write = (code: number, bits: number) => {
    for (let n = 0; n < bits; n++) {
      value = (value << 1) | (Math.floor(code / 2 ** n) & 1);
      if (++filled === 6) {
        out.push(ALPHABET[value]!);
        value = 0;
        filled = 0;
      }
    }
  };
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  write(0, 2);
  write("A".charCodeAt(0), 8);
  for (let i = 0; i < codes; i++) {
    write(dictSize++, numBits);
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
  write(2, numBits);
  if (filled > 0) write(0, 6 - filled);
  return out.join("");
}

/**
 * The JSON text of a capture event for `token` exactly `bytes` bytes long (UTF-8), padded with a
 * property of spaces; `bytes` must leave room for the event itself (about 100 bytes).
 */
export function eventOfBytes(token: string, bytes: number): string {
  const shell = (padding: string) =>
    JSON.stringify({ event: "sized", distinct_id: "u", properties: { token, padding } });
  const empty = Buffer.byteLength(shell(""));
  if (bytes < empty) throw new Error(`an event needs at least ${empty} bytes`);
  return shell(" ".repeat(bytes - empty));
}
