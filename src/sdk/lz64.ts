/**
 * lz-string's `decompressFromBase64` (the `lz64` compression of older posthog-js), with a bound on
 * what it produces. lz-string's own decompressor builds the whole text before anyone can measure
 * it, and its dictionary lets each code stand for one character more than the last, so a body of a
 * few kilobytes can stand for gigabytes: a decompression bomb that would hold the event loop and the
 * heap long before a size check. This is the same algorithm (lz-string 1.5.0 `_decompress`: the
 * same text for every stream lz-string writes; a malformed one lz-string reads as garbage is null)
 * stopping as soon as the output passes the bound, as PostHog's capture
 * does (`decompress_lz64_capped` in rust/common/compression, used by rust/capture's
 * `decompress_lz64_to_string`). Work and memory are linear in the input plus the bound.
 */
import { PayloadTooLargeError } from "../core/errors.js";

/** lz-string's base64 alphabet (its `keyStrBase64`): a character's index is its 6-bit value. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
const VALUES = new Map([...ALPHABET].map((character, index) => [character, index]));

/** Codes of the stream that are not dictionary entries: a literal 8- or 16-bit character, the end. */
const CHAR_8 = 0;
const CHAR_16 = 1;
const END = 2;

/**
 * The text `input` (lz-string's base64 form) decompresses to, or null when it is not a complete
 * lz-string stream (lz-string answers null or "" for those; an empty input included).
 * @param maxUnits the longest output accepted, in UTF-16 code units: a byte limit may be passed as
 *   it is (a text's UTF-8 is never shorter than its count of code units), and the caller checks the
 *   UTF-8 length of what comes back.
 * @throws PayloadTooLargeError naming `maxUnits` as soon as the output would be longer.
 */
export function decompressLz64(input: string, maxUnits: number): string | null {
  if (input === "") return null;
  let position = 32;
  let index = 1;
  let value = VALUES.get(input.charAt(0)) ?? 0;
  /** The next `count` bits of the stream, least significant first (lz-string's order). */
  const read = (count: number): number => {
    let bits = 0;
    for (let power = 1, n = 0; n < count; n++, power *= 2) {
      const bit = value & position;
      position >>= 1;
      if (position === 0) {
        position = 32;
        value = VALUES.get(input.charAt(index++)) ?? 0;
      }
      if (bit > 0) bits += power;
    }
    return bits;
  };

  const dictionary: string[] = [];
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  const first = read(2);
  // lz-string itself fails on 3 here (a TypeError on an undefined dictionary entry).
  if (first !== CHAR_8 && first !== CHAR_16) return null;
  let w = String.fromCharCode(read(first === CHAR_8 ? 8 : 16));
  dictionary[3] = w;
  const result = [w];
  let length = w.length;
  for (;;) {
    if (index > input.length) return null;
    let code = read(numBits);
    if (code === END) return result.join("");
    if (code === CHAR_8 || code === CHAR_16) {
      dictionary[dictSize++] = String.fromCharCode(read(code === CHAR_8 ? 8 : 16));
      code = dictSize - 1;
      enlargeIn--;
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    let entry = dictionary[code];
    if (entry === undefined) {
      if (code !== dictSize) return null;
      entry = w + w.charAt(0);
    }
    length += entry.length;
    if (length > maxUnits) throw new PayloadTooLargeError(maxUnits);
    result.push(entry);
    dictionary[dictSize++] = w + entry.charAt(0);
    enlargeIn--;
    w = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}
