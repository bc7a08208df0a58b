/**
 * The code generators by language, and what an answer of `event_definitions/<language>/` holds
 * (posthog-behavior.md §6.4; `_generate_definitions` in `posthog/api/event_definition.py`): the
 * source, the number of events in it, the schema hash and the generator's version. Pure: the caller
 * reads the events and the time.
 */
import { GOLANG_GENERATOR_VERSION, generateGo } from "./golang.js";
import type { CodegenEvent, CodeLanguage } from "./model.js";
import { generatePython, PYTHON_GENERATOR_VERSION } from "./python.js";
import { schemaHash } from "./schema-hash.js";
import { generateTypeScript, TYPESCRIPT_GENERATOR_VERSION } from "./typescript.js";

/** One language's generator. */
export interface CodeGenerator {
  /** PostHog's `language_name()`: `TypeScript`, `Go`, `Python` (the schema hash's `language`). */
  languageName: string;
  /** PostHog's `generator_version()`. */
  version: string;
  /** The source file for the events, in the order given, stamped with the time. */
  generate: (events: readonly CodegenEvent[], generatedAt: Date) => string;
}

/** The generator of each language. */
export const CODE_GENERATORS: Record<CodeLanguage, CodeGenerator> = {
  typescript: {
    languageName: "TypeScript",
    version: TYPESCRIPT_GENERATOR_VERSION,
    generate: generateTypeScript,
  },
  golang: { languageName: "Go", version: GOLANG_GENERATOR_VERSION, generate: generateGo },
  python: { languageName: "Python", version: PYTHON_GENERATOR_VERSION, generate: generatePython },
};

/** Generated code as both doors answer it (REST: `content`, `event_count`, `schema_hash`, `generator_version`). */
export interface GeneratedCode {
  /** The source file's text. */
  content: string;
  /** How many events it covers. */
  eventCount: number;
  /** 32 hex digits: changes when the events' schemas, the language or the generator version change. */
  schemaHash: string;
  /** The generator's version, e.g. `1.1.0`. */
  generatorVersion: string;
}

/** The code of `language` for `events` (ordered as they should appear), generated at `generatedAt`. */
export function generateCode(
  language: CodeLanguage,
  events: readonly CodegenEvent[],
  generatedAt: Date,
): GeneratedCode {
  const generator = CODE_GENERATORS[language];
  return {
    content: generator.generate(events, generatedAt),
    eventCount: events.length,
    schemaHash: schemaHash(generator.languageName, generator.version, events),
    generatorVersion: generator.version,
  };
}
