/**
 * Durations as Django reads and writes them (`expires_after`, a `DurationField`):
 * `django.utils.duration.duration_string` writes `[DD ]HH:MM:SS[.uuuuuu]` (`14 00:00:00`);
 * `django.utils.dateparse.parse_duration` reads that form (hours and minutes optional, a day count
 * optional) and ISO 8601 (`P14D`, `PT1H30M`).
 */

const MICROS_PER_SECOND = 1_000_000n;

/** `micros` (≥ 0) as Django writes a duration, e.g. `14 00:00:00`, `01:30:00.250000`. */
export function durationString(micros: bigint): string {
  const totalSeconds = micros / MICROS_PER_SECOND;
  const fraction = micros % MICROS_PER_SECOND;
  const days = totalSeconds / 86_400n;
  const rest = totalSeconds % 86_400n;
  const pad = (n: bigint) => n.toString().padStart(2, "0");
  let text = `${pad(rest / 3600n)}:${pad((rest % 3600n) / 60n)}:${pad(rest % 60n)}`;
  if (days > 0n) text = `${days} ${text}`;
  if (fraction > 0n) text += `.${fraction.toString().padStart(6, "0")}`;
  return text;
}

const STANDARD =
  /^(?:(?<days>-?\d+) (?:days?, )?)?(?<sign>-?)(?:(?<hours>\d+):)??(?:(?<minutes>\d+):)?(?<seconds>\d+)(?:[.,](?<fraction>\d{1,6})\d*)?$/;
const ISO =
  /^(?<sign>[-+]?)P(?:(?<days>\d+(?:[.,]\d+)?)D)?(?:T(?:(?<hours>\d+(?:[.,]\d+)?)H)?(?:(?<minutes>\d+(?:[.,]\d+)?)M)?(?:(?<seconds>\d+(?:[.,]\d+)?)S)?)?$/;

/** Seconds of a decimal text (`1,5` or `1.5`) as microseconds. */
function micro(text: string | undefined, unitSeconds: number): bigint {
  if (!text) return 0n;
  return BigInt(Math.round(Number(text.replace(",", ".")) * unitSeconds * 1_000_000));
}

/** A duration text as microseconds, or null when Django would not read it. */
export function parseDuration(text: string): bigint | null {
  const standard = STANDARD.exec(text.trim());
  if (standard?.groups) {
    const g = standard.groups;
    const fraction = BigInt((g["fraction"] ?? "").padEnd(6, "0") || "0");
    const time = micro(g["hours"], 3600) + micro(g["minutes"], 60) + micro(g["seconds"], 1) + fraction;
    return micro(g["days"], 86_400) + (g["sign"] === "-" ? -time : time);
  }
  const iso = ISO.exec(text.trim());
  if (iso?.groups && text.trim() !== "P" && !text.trim().endsWith("T")) {
    const g = iso.groups;
    const total =
      micro(g["days"], 86_400) + micro(g["hours"], 3600) + micro(g["minutes"], 60) + micro(g["seconds"], 1);
    return g["sign"] === "-" ? -total : total;
  }
  return null;
}
