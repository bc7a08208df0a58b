/**
 * What a webhook URL may be when it is saved: an absolute `http:` or `https:` URL without
 * credentials. Where it points is checked at each delivery, after DNS resolution (../delivery/ssrf.ts):
 * a name's addresses can change between the save and the send.
 */
import { ValidationError } from "../../core/errors.js";

/** Longest URL accepted, in characters (the column's size). */
export const MAX_URL_LENGTH = 2000;

/**
 * The URL in its normalised form (WHATWG URL serialisation).
 * @throws ValidationError (attr `url`): not an absolute URL, a scheme other than http/https, a user
 *   name or password in it, or a fragment-only/hostless URL.
 */
export function checkWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError("Enter a valid URL.", { attr: "url", code: "invalid" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ValidationError("Only http and https URLs are allowed.", { attr: "url", code: "invalid" });
  }
  if (url.username !== "" || url.password !== "") {
    throw new ValidationError("URLs with credentials are not allowed.", { attr: "url", code: "invalid" });
  }
  if (url.hostname === "") throw new ValidationError("Enter a valid URL.", { attr: "url", code: "invalid" });
  const text = url.toString();
  if (text.length > MAX_URL_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${MAX_URL_LENGTH} characters.`, {
      attr: "url",
      code: "max_length",
    });
  }
  return text;
}
