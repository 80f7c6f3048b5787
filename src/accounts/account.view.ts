import { z } from 'zod';
import type { User } from '../users/user.entity';

/** The wire form of a user: never the password hash. */
export const userView = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  has_password: z.boolean(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type UserView = z.infer<typeof userView>;

/** What signup, login, refresh and OAuth sign-in answer. The refresh token is shown this once. */
export const sessionView = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  user: userView,
});
export type SessionView = z.infer<typeof sessionView>;

export function toUserView(user: User): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name ?? null,
    has_password: Boolean(user.passwordHash),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
