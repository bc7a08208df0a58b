/**
 * Which persons a CSV upload names, by PostHog's column rules (`posthog/api/cohort.py`
 * `CohortSerializer._calculate_static_by_csv` and `CSVConfig`):
 * - blank lines are skipped; the first other row decides the format;
 * - one non-empty column: a header `person_id`/`person-id`/`Person .id` or `email`/`e-mail` makes
 *   the rows below person uuids or emails; anything else is a distinct id, the first row included;
 * - several columns: the first `person_id`-like header, else `distinct_id`/`distinct-id`, else
 *   `email`/`e-mail` (case-insensitive) names the column read; rows too short are skipped;
 * - values are trimmed and empty ones dropped; no value at all is an error.
 * Parsing is csv-parse's (RFC 4180 quoting, as Python's `csv.reader`).
 */
import { parse } from "csv-parse/sync";
import { ValidationError } from "../../core/errors.js";
import { checkStorableString } from "../../core/json-input.js";

/** How the ids of an upload name persons. */
export type CsvIdType = "person_id" | "distinct_id" | "email";

/** The ids an upload names, and of which kind. */
export interface CsvMembers {
  idType: CsvIdType;
  ids: string[];
}

const PERSON_ID_HEADERS = ["person_id", "person-id", "person .id"];
const DISTINCT_ID_HEADERS = ["distinct_id", "distinct-id"];
const EMAIL_HEADERS = ["email", "e-mail"];

/** PostHog's CSV messages (`CSVConfig.ErrorMessages`), all under `attr: "csv"`. */
const MESSAGES = {
  empty: "CSV file is empty. Please upload a CSV file with at least one row of data.",
  missingColumn: (columns: string) =>
    "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', " +
    `'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: ${columns}`,
  noIds:
    "CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.",
  encoding: "CSV file encoding is not supported. Please save your file as UTF-8 and try again.",
  format: "CSV file format is invalid. Please check your file format and try again.",
};

const csvError = (detail: string) => new ValidationError(detail, { attr: "csv" });

/**
 * An upload's text: UTF-8 (a byte-order mark dropped), holding no NUL or lone surrogate, which no
 * id could be compared with. Checked before anything else of the request is decided.
 * @throws ValidationError attr `csv`: not UTF-8 (PostHog's message), or `null_characters_not_allowed`.
 */
export function csvText(content: Buffer | string): string {
  let text: string;
  if (typeof content === "string") text = content;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      throw csvError(MESSAGES.encoding);
    }
  }
  checkStorableString(text, "csv");
  return text.replace(/^\uFEFF/, "");
}

function findIdColumn(headers: string[]): { index: number; idType: CsvIdType } | null {
  const lower = headers.map((h) => h.trim().toLowerCase());
  for (const [idType, names] of [
    ["person_id", PERSON_ID_HEADERS],
    ["distinct_id", DISTINCT_ID_HEADERS],
    ["email", EMAIL_HEADERS],
  ] as const) {
    const index = lower.findIndex((h) => names.includes(h));
    if (index >= 0) return { index, idType };
  }
  return null;
}

/**
 * The persons an upload's text (see `csvText`) names.
 * @throws ValidationError attr `csv`: empty file, no id column in a multi-column file, no ids, or
 *   malformed CSV (PostHog's messages).
 */
export function csvMembers(text: string): CsvMembers {
  let rows: string[][];
  try {
    rows = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch {
    throw csvError(MESSAGES.format);
  }
  const [first, ...rest] = rows;
  if (!first) throw csvError(MESSAGES.empty);
  const values = (column: number, from: string[][]) =>
    from.flatMap((row) => {
      const value = row[column]?.trim() ?? "";
      return value === "" ? [] : [value];
    });

  let members: CsvMembers;
  if (first.filter((cell) => cell.trim() !== "").length <= 1) {
    const header = (first[0] ?? "").trim().toLowerCase();
    if (PERSON_ID_HEADERS.includes(header)) members = { idType: "person_id", ids: values(0, rest) };
    else if (EMAIL_HEADERS.includes(header)) members = { idType: "email", ids: values(0, rest) };
    else members = { idType: "distinct_id", ids: values(0, rows) };
  } else {
    const column = findIdColumn(first);
    if (!column) {
      const found = first.filter((h) => h.trim() !== "");
      throw csvError(MESSAGES.missingColumn(found.length ? found.join(", ") : "none"));
    }
    members = {
      idType: column.idType,
      ids: values(
        column.index,
        rest.filter((row) => row.length > column.index),
      ),
    };
  }
  if (members.ids.length === 0) throw csvError(MESSAGES.noIds);
  return members;
}
