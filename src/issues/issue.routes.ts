import { pageSchema } from '../common/pagination';
import { bulkActionView } from '../bulk-actions/bulk-action.service';
import { idParams, route } from '../http/route';
import { countIssues, getIssue, listIssues, listIssuesQuery, retryIssue, retryIssueInput, updateIssue, updateIssueInput } from './issue.service';
import { issueCountsView, issueView } from './issue.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const issueRoutes = [
  route({
    method: 'get', path: '/v1/issues', tag: 'issues', summary: 'List issues (failures grouped by destination and cause), newest first; by state, destination and cause',
    access: read, query: listIssuesQuery, response: pageSchema(issueView),
    handler: (ctx, { query }) => listIssues(ctx, query),
  }),
  route({
    method: 'get', path: '/v1/issues/counts', tag: 'issues', summary: 'How many issues the project has in each state',
    access: read, response: issueCountsView,
    handler: (ctx) => countIssues(ctx),
  }),
  route({
    method: 'get', path: '/v1/issues/:id', tag: 'issues', summary: 'Get an issue',
    access: read, params: idParams, response: issueView,
    handler: (ctx, { params }) => getIssue(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/issues/:id', tag: 'issues', summary: 'Acknowledge, ignore, resolve or reopen an issue',
    access: write, params: idParams, body: updateIssueInput, response: issueView,
    handler: (ctx, { params, body }) => updateIssue(ctx, params.id, body),
  }),
  route({
    method: 'post', path: '/v1/issues/:id/retry', tag: 'issues',
    summary: 'Retry every delivery the issue affected (a bulk retry of the failed and waiting ones); returns the bulk action',
    access: write, params: idParams, body: retryIssueInput, response: bulkActionView, status: 202,
    handler: (ctx, { params, body }) => retryIssue(ctx, params.id, body),
  }),
];
