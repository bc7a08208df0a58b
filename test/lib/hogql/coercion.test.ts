/**
 * The HogQL printer's type rules (src/lib/hogql/coercion.ts), without a database: ClickHouse's
 * `date ± n` (days) and `datetime ± n` (seconds) as PostgreSQL's date and interval arithmetic, the
 * type of `+`, `-` and `*` over dates, date-times, intervals and numbers, and each side of a
 * comparison made comparable with the other (text beside a date is a timestamp; numbers, UUIDs,
 * booleans and JSON beside text are text; a number beside a boolean is `<> 0`). Rules from
 * ClickHouse's type rules as PostHog's `posthog/hogql/printer.py` relies on them; printer-run.test.ts
 * runs the printed SQL.
 */
import { describe, expect, it } from "vitest";
import { arithmeticType, coerce, numericOf, shiftByNumber, textOf } from "../../../src/lib/hogql/coercion.js";
import { raw } from "../../../src/lib/hogql/functions/shared.js";
import type { HogQLType, Printed } from "../../../src/lib/hogql/types.js";

/** A printed value of `type`, written as `text`. */
function value(type: HogQLType, text: string, nullable = false): Printed {
  return { sql: raw(text), type, nullable };
}

/** What a printed value is: its SQL text, type and nullability. */
function shape(printed: Printed | null) {
  return printed && { sql: printed.sql.sql, type: printed.type, nullable: printed.nullable };
}

describe("shiftByNumber", () => {
  it("moves a date by whole days, the number on either side of +", () => {
    expect(shape(shiftByNumber(value("Date", "d"), value("Int64", "n"), "+"))).toEqual({
      sql: "(d + (n)::int)",
      type: "Date",
      nullable: false,
    });
    expect(shape(shiftByNumber(value("Date", "d"), value("Float64", "n"), "-"))).toEqual({
      sql: "(d - (n)::int)",
      type: "Date",
      nullable: false,
    });
    expect(shape(shiftByNumber(value("UInt64", "n"), value("Date", "d"), "+"))).toEqual({
      sql: "(d + (n)::int)",
      type: "Date",
      nullable: false,
    });
  });

  it("moves a date-time by seconds, through an interval", () => {
    expect(shape(shiftByNumber(value("DateTime", "t"), value("Float64", "n"), "-"))).toEqual({
      sql: "(t - (n)::float8 * interval '1 second')",
      type: "DateTime",
      nullable: false,
    });
    expect(shape(shiftByNumber(value("Int64", "n"), value("DateTime", "t"), "+"))).toEqual({
      sql: "(t + (n)::float8 * interval '1 second')",
      type: "DateTime",
      nullable: false,
    });
  });

  it("is nullable when either side is", () => {
    expect(shiftByNumber(value("Date", "d", true), value("Int64", "n"), "+")?.nullable).toBe(true);
    expect(shiftByNumber(value("Date", "d"), value("Int64", "n", true), "+")?.nullable).toBe(true);
    expect(shiftByNumber(value("DateTime", "t", true), value("Int64", "n"), "-")?.nullable).toBe(true);
    expect(shiftByNumber(value("Int64", "n", true), value("DateTime", "t"), "+")?.nullable).toBe(true);
  });

  it("leaves to plain arithmetic a number minus a date, and anything but a date beside a number", () => {
    expect(shiftByNumber(value("Int64", "n"), value("Date", "d"), "-")).toBeNull();
    expect(shiftByNumber(value("Int64", "n"), value("DateTime", "t"), "-")).toBeNull();
    expect(shiftByNumber(value("Int64", "a"), value("Int64", "b"), "+")).toBeNull();
    expect(shiftByNumber(value("String", "s"), value("Int64", "n"), "+")).toBeNull();
    expect(shiftByNumber(value("Interval", "i"), value("Int64", "n"), "-")).toBeNull();
    expect(shiftByNumber(value("Date", "d"), value("Interval", "i"), "+")).toBeNull();
    expect(shiftByNumber(value("DateTime", "t"), value("String", "s"), "+")).toBeNull();
  });
});

describe("arithmeticType", () => {
  const type = (left: HogQLType, op: string, right: HogQLType) =>
    arithmeticType(value(left, "l"), value(right, "r"), op);

  it("a date minus a date is a number of days; other differences of dates and date-times are intervals", () => {
    expect(type("Date", "-", "Date")).toBe("Int64");
    expect(type("Date", "-", "DateTime")).toBe("Interval");
    expect(type("DateTime", "-", "Date")).toBe("Interval");
    expect(type("DateTime", "-", "DateTime")).toBe("Interval");
  });

  it("a date-time beside an interval is a date-time, and so is a date", () => {
    expect(type("DateTime", "+", "Interval")).toBe("DateTime");
    expect(type("DateTime", "-", "Interval")).toBe("DateTime");
    expect(type("Interval", "+", "DateTime")).toBe("DateTime");
    expect(type("Date", "+", "Interval")).toBe("DateTime");
    expect(type("Date", "-", "Interval")).toBe("DateTime");
    expect(type("Interval", "+", "Date")).toBe("DateTime");
  });

  it("intervals stay intervals, among themselves and times a number", () => {
    expect(type("Interval", "+", "Interval")).toBe("Interval");
    expect(type("Interval", "-", "Interval")).toBe("Interval");
    expect(type("Interval", "*", "Int64")).toBe("Interval");
    expect(type("Float64", "*", "Interval")).toBe("Interval");
  });

  it("numbers are Float64 when either side is, else Int64", () => {
    expect(type("Int64", "+", "Int64")).toBe("Int64");
    expect(type("Int64", "-", "UInt64")).toBe("Int64");
    expect(type("Int64", "*", "Float64")).toBe("Float64");
    expect(type("Float64", "-", "Int64")).toBe("Float64");
  });
});

describe("numericOf", () => {
  it("is Float64 when either side is, else Int64", () => {
    expect(numericOf(value("Float64", "a"), value("Int64", "b"))).toBe("Float64");
    expect(numericOf(value("Int64", "a"), value("Float64", "b"))).toBe("Float64");
    expect(numericOf(value("Float64", "a"), value("Float64", "b"))).toBe("Float64");
    expect(numericOf(value("Int64", "a"), value("UInt64", "b"))).toBe("Int64");
    expect(numericOf(value("Unknown", "a"), value("String", "b"))).toBe("Int64");
  });
});

describe("textOf", () => {
  it("keeps text as it is and casts anything else, keeping its nullability", () => {
    const text = value("String", "s", true);
    expect(textOf(text)).toBe(text);
    expect(shape(textOf(value("Int64", "n")))).toEqual({ sql: "(n)::text", type: "String", nullable: false });
    expect(shape(textOf(value("UUID", "u", true)))).toEqual({
      sql: "(u)::text",
      type: "String",
      nullable: true,
    });
  });
});

describe("coerce", () => {
  it("reads text beside a date or a date-time as a timestamp, which may be NULL", () => {
    for (const other of ["Date", "DateTime"] as const) {
      expect(shape(coerce(value("String", "s"), value(other, "d")))).toEqual({
        sql: "hogql_to_timestamptz(s)",
        type: "DateTime",
        nullable: true,
      });
    }
  });

  it("leaves the date side, and text beside text, as they are", () => {
    const date = value("Date", "d");
    expect(coerce(date, value("String", "s"))).toBe(date);
    const dateTime = value("DateTime", "t");
    expect(coerce(dateTime, value("String", "s"))).toBe(dateTime);
    const text = value("String", "s");
    expect(coerce(text, value("String", "o"))).toBe(text);
  });

  it("reads numbers, UUIDs and booleans beside text as text", () => {
    for (const type of ["Int64", "UInt64", "Float64", "UUID", "Bool"] as const) {
      expect(shape(coerce(value(type, "v", true), value("String", "s")))).toEqual({
        sql: "(v)::text",
        type: "String",
        nullable: true,
      });
    }
  });

  it("reads JSON beside anything but JSON as its text, and leaves JSON beside JSON", () => {
    for (const other of ["String", "Int64", "Bool", "Unknown"] as const) {
      expect(shape(coerce(value("JSON", "j"), value(other, "o")))).toEqual({
        sql: "(j)::text",
        type: "String",
        nullable: false,
      });
    }
    const json = value("JSON", "j");
    expect(coerce(json, value("JSON", "k"))).toBe(json);
  });

  it("reads a number beside a boolean as `<> 0`", () => {
    for (const type of ["Int64", "UInt64", "Float64"] as const) {
      expect(shape(coerce(value(type, "n", true), value("Bool", "b")))).toEqual({
        sql: "((n) <> 0)",
        type: "Bool",
        nullable: true,
      });
    }
    const bool = value("Bool", "b");
    expect(coerce(bool, value("Int64", "n"))).toBe(bool);
  });

  it("leaves numbers beside numbers, and values beside what they already compare with", () => {
    const number = value("Int64", "n");
    expect(coerce(number, value("Float64", "f"))).toBe(number);
    expect(coerce(number, value("Date", "d"))).toBe(number);
    const uuid = value("UUID", "u");
    expect(coerce(uuid, value("UUID", "v"))).toBe(uuid);
    const text = value("String", "s");
    expect(coerce(text, value("Int64", "n"))).toBe(text);
    expect(coerce(text, value("Bool", "b"))).toBe(text);
    expect(coerce(text, value("JSON", "j"))).toBe(text);
  });
});
