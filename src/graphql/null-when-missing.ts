/**
 * How a read-by-id field answers an object that is not there: null, as GraphQL fields do, while a
 * missing project (or any other refusal) stays an error at the field.
 */
import { NotFoundError, ProjectNotFoundError } from "../core/errors.js";

/** `read`'s value, or null when it fails with `NotFoundError` for the object (not for the project). */
export async function nullWhenMissing<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
    throw error;
  }
}
