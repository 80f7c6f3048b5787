import { route } from '../http/route';
import { login, loginInput, logout, me, refresh, refreshInput, signup, signupInput, updateMe, updateMeInput } from './account.service';
import { sessionView, userView } from './account.view';

export const accountRoutes = [
  route({
    method: 'post', path: '/v1/auth/signup', tag: 'auth', summary: 'Create an account (with `invite_token`: join the inviting organization) and start a session',
    access: { scope: 'public' }, body: signupInput, response: sessionView, status: 201,
    handler: (ctx, { body }) => signup(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/auth/login', tag: 'auth', summary: 'Start a session with email and password',
    access: { scope: 'public' }, body: loginInput, response: sessionView,
    handler: (ctx, { body }) => login(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/auth/refresh', tag: 'auth', summary: 'Exchange a refresh token for a new access token and the next refresh token',
    access: { scope: 'public' }, body: refreshInput, response: sessionView,
    handler: (ctx, { body }) => refresh(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/auth/logout', tag: 'auth', summary: 'Revoke the session of this refresh token',
    access: { scope: 'public' }, body: refreshInput,
    handler: async (ctx, { body }) => logout(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/me', tag: 'auth', summary: 'The signed-in user',
    access: { scope: 'user' }, response: userView,
    handler: (ctx) => me(ctx),
  }),
  route({
    method: 'patch', path: '/v1/me', tag: 'auth', summary: 'Change your name or password',
    access: { scope: 'user' }, body: updateMeInput, response: userView,
    handler: (ctx, { body }) => updateMe(ctx, body),
  }),
];
