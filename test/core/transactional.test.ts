/**
 * `transactional` (src/core/transactional.ts) and the guarded-update loop under it
 * (src/core/row-lock.ts `retryWhileMoved`), on both backends: a nested call joins the outer
 * transaction (on PGlite, with one connection, a second transaction would wait forever), so both
 * parts commit or roll back together; the reads of a joined part see the outer's rows; work that
 * outlives a transaction opens its own; and a RowMoved thrown by a joined guarded update is not
 * retried where it is thrown but rolls the whole outer attempt back to the outermost loop, which
 * decides again.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DECISIONS, RowMoved, retryWhileMoved } from "../../src/core/row-lock.js";
import { clientOf, inTransaction, readerOf, transactional } from "../../src/core/transactional.js";
import type { Database } from "../../src/db/database.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { availableBackends, openTestDatabase } from "../support/server.js";

type Client = Pick<Database["prisma"], "$executeRaw" | "$queryRaw">;

/** Inserts row `id` (labelled `label`) into the probe table through `client`. */
async function insert(client: Client, id: number, label: string): Promise<void> {
  await client.$executeRaw`INSERT INTO tx_probe (id, label) VALUES (${id}, ${label})`;
}

for (const backend of ["pglite", "postgres"] as const) {
  describe.skipIf(!availableBackends().includes(backend))(`transactional [${backend}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
    let ctx: { db: Database["prisma"]; reader: Database["reader"] };

    /** The probe table's ids among `ids`, committed, ascending. */
    async function committed(...ids: number[]): Promise<number[]> {
      const rows = await ctx.db.$queryRaw<Array<{ id: number }>>`
        SELECT id FROM tx_probe WHERE id = ANY(${ids}::int[]) ORDER BY id`;
      return rows.map((row) => row.id);
    }

    beforeAll(async () => {
      opened = await openTestDatabase(backend);
      ctx = { db: opened.database.prisma, reader: opened.database.reader };
      await ctx.db.$executeRawUnsafe("CREATE TABLE tx_probe (id int PRIMARY KEY, label text NOT NULL)");
    });

    afterAll(async () => {
      await opened?.database.close();
      await opened?.drop();
    });

    it("a nested call joins the outer transaction: it sees the outer's rows, and both commit together", async () => {
      expect(inTransaction()).toBe(false);
      expect(clientOf(ctx)).toBe(ctx.db);
      expect(readerOf(ctx)).toBe(ctx.reader);
      const seen = await transactional(ctx, async (outer) => {
        await insert(outer, 1, "outer");
        const inner = await transactional(ctx, async (tx) => {
          await insert(tx, 2, "inner");
          return tx;
        });
        expect(inner).toBe(outer);
        expect(inTransaction()).toBe(true);
        expect(clientOf(ctx)).toBe(outer);
        // The reads of a joined part run in the transaction: they see its uncommitted rows.
        const read = await readerOf(ctx).rows<{ id: number }>(
          Prisma.sql`SELECT id FROM tx_probe WHERE id IN (1, 2) ORDER BY id`,
        );
        return read.map((row) => row.id);
      });
      expect(seen).toEqual([1, 2]);
      expect(await committed(1, 2)).toEqual([1, 2]);
      expect(inTransaction()).toBe(false);
    });

    it("an error in the inner part rolls the outer's rows back too", async () => {
      const failed = transactional(ctx, async (outer) => {
        await insert(outer, 3, "outer");
        await transactional(ctx, async (tx) => {
          await insert(tx, 4, "inner");
          throw new Error("inner failed");
        });
      });
      await expect(failed).rejects.toThrow("inner failed");
      expect(await committed(3, 4)).toEqual([]);
    });

    it("an error after the inner part returned rolls the inner's rows back", async () => {
      const failed = transactional(ctx, async (outer) => {
        await transactional(ctx, (tx) => insert(tx, 5, "inner"));
        await insert(outer, 6, "outer");
        throw new Error("outer failed");
      });
      await expect(failed).rejects.toThrow("outer failed");
      expect(await committed(5, 6)).toEqual([]);
    });

    it("work that outlives a transaction opens its own", async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let later: Promise<unknown> | undefined;
      const first = await transactional(ctx, async (tx) => {
        // Started inside, run after the transaction committed: its async context still names it.
        later = gate.then(() =>
          transactional(ctx, async (own) => {
            await insert(own, 7, "later");
            return own;
          }),
        );
        return tx;
      });
      release();
      expect(await later).not.toBe(first);
      expect(await committed(7)).toEqual([7]);
    });

    it("a RowMoved in a joined guarded update retries the whole outer attempt, once per move", async () => {
      let outerAttempts = 0;
      let innerAttempts = 0;
      const made = await retryWhileMoved(
        () =>
          transactional(ctx, async (outer) => {
            outerAttempts++;
            await insert(outer, 10 + outerAttempts, "outer");
            await retryWhileMoved(
              () =>
                transactional(ctx, async (tx) => {
                  innerAttempts++;
                  await insert(tx, 20 + innerAttempts, "inner");
                  if (innerAttempts === 1) throw new RowMoved();
                }),
              () => new Error("a joined loop never gives up on its own"),
            );
            return outerAttempts;
          }),
        () => new Error("the outer loop gave up"),
      );
      // The inner part was not retried inside the first outer attempt: both ran twice.
      expect([made, outerAttempts, innerAttempts]).toEqual([2, 2, 2]);
      // The first attempt's rows, outer and inner, rolled back together.
      expect(await committed(11, 12, 21, 22)).toEqual([12, 22]);
    });

    it("a joined guarded update that keeps moving ends with the outermost loop's answer", async () => {
      let outerAttempts = 0;
      let innerAttempts = 0;
      const exhausted = retryWhileMoved(
        () =>
          transactional(ctx, async (outer) => {
            outerAttempts++;
            await insert(outer, 30 + outerAttempts, "outer");
            await retryWhileMoved(
              () =>
                transactional(ctx, async () => {
                  innerAttempts++;
                  throw new RowMoved();
                }),
              () => new Error("a joined loop never gives up on its own"),
            );
          }),
        () => new Error("the outer loop gave up"),
      );
      await expect(exhausted).rejects.toThrow("the outer loop gave up");
      expect([outerAttempts, innerAttempts]).toEqual([MAX_DECISIONS, MAX_DECISIONS]);
      expect(await committed(...Array.from({ length: MAX_DECISIONS }, (_, i) => 31 + i))).toEqual([]);
    });

    it("outside any transaction, the loop retries on its own and passes other errors through", async () => {
      let attempts = 0;
      const made = await retryWhileMoved(
        async () => {
          attempts++;
          if (attempts < 3) throw new RowMoved();
          return attempts;
        },
        () => new Error("gave up"),
      );
      expect(made).toBe(3);
      await expect(
        retryWhileMoved(
          () => Promise.reject(new Error("refused")),
          () => new Error("gave up"),
        ),
      ).rejects.toThrow("refused");
    });
  });
}
