/**
 * The CLI's administrative commands (`bootstrap`, `keys create`, `keys list`, `keys revoke`,
 * `projects create`, `users create`, `users list`) as plain functions over a database,
 * so that the same code runs in the CLI process or, when a server holds the embedded data directory,
 * inside that server through the admin socket (src/cli/admin-socket.ts).
 */
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { parseInput } from "../core/validation.js";
import type { PrismaClient, User } from "../generated/prisma/client.js";
import { createProjectForUser, type NewProject } from "../projects/create-project.js";
import { type BootstrapResult, bootstrap } from "../users/bootstrap.js";
import { newUserSchema } from "../users/users.schemas.js";
import {
  type CreatedUser,
  createPersonalApiKey,
  createUser,
  type ListedKey,
  listOrganizationMembers,
  listPersonalApiKeys,
  type MemberList,
  revokePersonalApiKey,
} from "../users/users.service.js";

/** `bootstrap`'s options. */
export const bootstrapCommandSchema = z.object({
  email: z.string().min(1),
  organizationName: z.string().min(1),
  projectName: z.string().min(1),
});

/** `keys create`'s options. */
export const createKeyCommandSchema = z.object({
  email: z.string().min(1),
  label: z.string(),
  scopes: z.array(z.string()),
  projects: z.array(z.int().positive()),
  organizations: z.array(z.string()),
});

/** `keys list`'s options: the keys' user. */
export const listKeysCommandSchema = z.object({ email: z.string().min(1) });

/** `keys revoke`'s options: the key's id and, to check that it is theirs, its user. */
export const revokeKeyCommandSchema = z.object({
  id: z.string().min(1),
  email: z.string().min(1).optional(),
});

/** `projects create`'s options. */
export const createProjectCommandSchema = z.object({
  email: z.string().min(1),
  name: z.string().min(1),
});

/** `users create`'s options: the user's e-mail, first name, level and organization (users.schemas.ts). */
export const createUserCommandSchema = newUserSchema;

/** `users list`'s options: the organization (absent: the first one, `bootstrap`'s). */
export const listUsersCommandSchema = z.object({ organizationId: z.string().optional() });

/** An administrative command and its options. */
export type AdminCommand =
  | { name: "bootstrap"; options: z.infer<typeof bootstrapCommandSchema> }
  | { name: "keys-create"; options: z.infer<typeof createKeyCommandSchema> }
  | { name: "keys-list"; options: z.infer<typeof listKeysCommandSchema> }
  | { name: "keys-revoke"; options: z.infer<typeof revokeKeyCommandSchema> }
  | { name: "projects-create"; options: z.infer<typeof createProjectCommandSchema> }
  | { name: "users-create"; options: z.input<typeof createUserCommandSchema> }
  | { name: "users-list"; options: z.infer<typeof listUsersCommandSchema> };

/**
 * What a command prints: bootstrap's JSON object, the new key, the user's keys, the revoked key's
 * id, the new project, the new user, or the members.
 */
export type AdminResult =
  | BootstrapResult
  | { personal_api_key: string }
  | ListedKey[]
  | { revoked: string }
  | NewProject
  | CreatedUser
  | MemberList;

/**
 * The user with e-mail `email`.
 * @throws ValidationError `No user with e-mail <email>. Run 'signalbox bootstrap' first.` when there is none.
 */
async function userWithEmail(db: PrismaClient, email: string): Promise<User> {
  const user = await db.user.findUnique({ where: { email } });
  if (!user) {
    throw new ValidationError(`No user with e-mail ${email}. Run 'signalbox bootstrap' first.`, {
      attr: "email",
    });
  }
  return user;
}

/**
 * Runs an administrative command against `db`.
 * @throws ValidationError for bad options, an unknown user, or a key the user may not have; for
 *   `users create`, an e-mail that has a user (nothing written) or an unknown organization.
 * @throws NotFoundError for `keys revoke` of a key that does not exist (or is not the `--email` user's).
 */
export async function runAdminCommand(db: PrismaClient, command: AdminCommand): Promise<AdminResult> {
  switch (command.name) {
    case "bootstrap":
      return bootstrap(db, parseInput(bootstrapCommandSchema, command.options));
    case "projects-create":
      return createProjectForUser(db, parseInput(createProjectCommandSchema, command.options));
    case "users-create":
      return createUser(db, parseInput(createUserCommandSchema, command.options));
    case "users-list":
      return listOrganizationMembers(db, parseInput(listUsersCommandSchema, command.options).organizationId);
    case "keys-create": {
      const options = parseInput(createKeyCommandSchema, command.options);
      const user = await userWithEmail(db, options.email);
      const { key } = await createPersonalApiKey(db, {
        userId: user.id,
        label: options.label,
        scopes: options.scopes,
        scopedTeams: options.projects,
        scopedOrganizations: options.organizations,
      });
      return { personal_api_key: key };
    }
    case "keys-list": {
      const { email } = parseInput(listKeysCommandSchema, command.options);
      return listPersonalApiKeys(db, (await userWithEmail(db, email)).id);
    }
    case "keys-revoke": {
      const { id, email } = parseInput(revokeKeyCommandSchema, command.options);
      return revokePersonalApiKey(db, id, email === undefined ? undefined : await userWithEmail(db, email));
    }
  }
}
