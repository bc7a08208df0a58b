/**
 * How a store writes a partial update (a PATCH, or a PUT's parsed body) over one row: the fields the
 * update names are written, an absent (undefined) one keeps its value, a null one writes SQL NULL,
 * and `updated_at` moves. One implementation for the stores whose rows change so (webhooks, holdouts,
 * saved metrics), over the one call of their Prisma table it needs.
 */

/** A Prisma table (a model's delegate, e.g. `tx.webhook`) as `writeRowChange` calls it. */
export interface ChangeableTable<D, I, R> {
  update(args: { where: { id: number }; data: D; include: I }): Promise<R>;
}

/** The fields of `C` named `K`, each absent when undefined in the change. */
export type DefinedFields<C, K extends keyof C> = { [P in K]?: Exclude<C[P], undefined> };

/**
 * The fields of `change` named in `fields` whose value is not undefined (null ones included: they
 * write SQL NULL), in `fields`' order. Other properties of `change` are never taken.
 */
export function definedFields<C extends object, K extends keyof C>(
  change: C,
  fields: readonly K[],
): DefinedFields<C, K> {
  const defined: DefinedFields<C, K> = {};
  for (const field of fields) {
    const value = change[field];
    if (value !== undefined) defined[field] = value as Exclude<C[K], undefined>;
  }
  return defined;
}

/**
 * Writes `change`'s defined `fields` (see `definedFields`) over row `id` of `table`, with
 * `updatedAt` = `now`, in the caller's transaction (the row locked by the caller). Returns the row
 * as written, with `include`'s relations. One statement.
 * @throws Prisma's P2025 when there is no row `id`.
 */
export function writeRowChange<C extends object, K extends keyof C, I, R>(
  table: ChangeableTable<DefinedFields<C, K> & { updatedAt: Date }, NoInfer<I>, NoInfer<R>>,
  id: number,
  change: C,
  fields: readonly K[],
  now: Date,
  include: I,
): Promise<R> {
  return table.update({ where: { id }, data: { ...definedFields(change, fields), updatedAt: now }, include });
}
