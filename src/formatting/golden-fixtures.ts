import type { TemplateMeta } from './index';

/** Real-looking payloads and templates for the golden tests and the render benchmark. */

export function metaFor(eventType: string): TemplateMeta {
  return {
    EventType: eventType,
    EventID: '0190f5a2-7c1e-7000-8000-000000000001',
    EndpointID: '0190f5a2-7c1e-7000-8000-000000000002',
    EndpointSlug: 'acme-hooks',
    DestinationID: '0190f5a2-7c1e-7000-8000-000000000003',
    ReceivedAt: '2024-03-05T07:08:09.000Z',
    Headers: { 'content-type': 'application/json', 'x-codehosta-event': eventType },
  };
}

export const pushPayload = {
  ref: 'refs/heads/main',
  before: '9f2c1e0',
  after: 'b7d4a91',
  compare: 'https://code.example.com/acme/relay/compare/9f2c1e0...b7d4a91',
  repository: { id: 1296269, full_name: 'acme/relay', html_url: 'https://code.example.com/acme/relay', default_branch: 'main' },
  pusher: { name: 'octo-dev', email: 'dev@acme.example' },
  sender: { login: 'octo-dev', avatar_url: 'https://avatars.example.com/u/583231' },
  commits: [
    { id: 'b7d4a91c3f', message: 'Fix escaping of <b>tags</b> & ampersands', url: 'https://code.example.com/acme/relay/commit/b7d4a91', author: { name: 'Dev One' } },
    { id: '5e8f0a2d11', message: 'Add routing rules\n\nLonger body of the commit message.', url: 'https://code.example.com/acme/relay/commit/5e8f0a2', author: { name: 'Dev Two' } },
  ],
};

export const pushTemplate = {
  version: 2,
  platforms: {
    chat_b: {
      title: '[{{ .Payload.repository.full_name }}] {{ len .Payload.commits }} new commit{{ if ne (len .Payload.commits) 1 }}s{{ end }} to {{ replace .Payload.ref "refs/heads/" "" }}',
      url: '{{ .Payload.compare }}',
      description: '{{ range .Payload.commits }}[`{{ truncate .id 7 "" }}`]({{ .url }}) {{ .message | truncate 50 }} - {{ .author.name }}\n{{ end }}',
      color: 7506394,
      author: '{{ .Payload.sender.login }}',
      thumbnail: '{{ .Payload.sender.avatar_url }}',
      footer: '{{ .Meta.EndpointSlug }}',
      timestamp: true,
    },
    chat_a: {
      text: '{{ len .Payload.commits }} new commits to {{ .Payload.repository.full_name }}',
      slack_blocks: [
        { type: 'header', text: { type: 'plain_text', text: '{{ .Payload.repository.full_name }}: push to {{ replace .Payload.ref "refs/heads/" "" }}' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '{{ range .Payload.commits }}• <{{ .url }}|{{ truncate .id 7 "" }}> {{ mrkdwn_escape .message | truncate 60 }}\n{{ end }}' },
        },
        { type: 'divider' },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'pushed by *{{ .Payload.pusher.name }}*' }] },
      ],
    },
    chat_c: {
      telegram_html:
        '<b>{{ .Payload.repository.full_name }}</b>: {{ len .Payload.commits }} new commits\n{{ range .Payload.commits }}• <a href="{{ .url }}">{{ truncate .id 7 "" }}</a> {{ .message }}\n{{ end }}<i>by {{ .Payload.pusher.name }}</i>',
    },
  },
};

export const paymentPayload = {
  id: 'evt_3OqJ2kLkdIwHu7ix0',
  object: 'event',
  type: 'payment_intent.succeeded',
  created: 1709622489,
  data: {
    object: {
      id: 'pi_3OqJ2kLkdIwHu7ix',
      amount: 4999,
      currency: 'usd',
      customer: 'cus_PfB1x',
      description: 'Pro plan <annual> & support',
      receipt_email: 'buyer@example.com',
      status: 'succeeded',
    },
  },
};

/** v1 flat: one embed for every platform, auto-converted for chat_a and chat_c. */
export const paymentTemplate = {
  title: 'Payment {{ .Payload.data.object.status }}: {{ .Payload.data.object.amount / 100 }} {{ upper .Payload.data.object.currency }}',
  description: '**{{ .Payload.data.object.description }}**\nCustomer `{{ .Payload.data.object.customer }}`',
  color: '#2ecc71',
  fields: [
    { name: 'Payment', value: '{{ .Payload.data.object.id }}', inline: true },
    { name: 'Email', value: '{{ .Payload.data.object.receipt_email | default "unknown" }}', inline: true },
    { name: 'Created', value: '{{ date .Payload.created }}' },
  ],
  footer: 'payments · {{ .Payload.id }}',
  timestamp: true,
};

export const issuePayload = {
  action: 'update',
  type: 'Issue',
  webhookId: 'wh_8c1d',
  url: 'https://tracker.example.com/acme/issue/ENG-42',
  data: {
    identifier: 'ENG-42',
    title: 'Crash when a title contains <script>alert(1)</script>',
    state: { name: 'In Progress' },
    priorityLabel: 'High',
    assignee: { name: 'Dana <dana@acme.example>' },
    labels: [{ name: 'bug' }, { name: 'p1' }],
  },
  updatedFrom: { stateId: 'todo' },
};

export const issueTemplate = {
  version: 2,
  platforms: {
    default: {
      title: '{{ .Payload.data.identifier }} {{ .Payload.data.title }}',
      url: '{{ .Payload.url }}',
      description: 'Moved to __{{ .Payload.data.state.name }}__',
      color: 15105570,
      fields: [
        { name: 'Priority', value: '{{ .Payload.data.priorityLabel }}', inline: true },
        { name: 'Assignee', value: '{{ .Payload.data.assignee.name | default "nobody" }}', inline: true },
        { name: 'Labels', value: '{{ range $i, $l := .Payload.data.labels }}{{ if $i }}, {{ end }}{{ $l.name }}{{ end }}' },
      ],
    },
    chat_c: {
      telegram_html:
        '<b><a href="{{ .Payload.url }}">{{ .Payload.data.identifier }}</a></b> {{ .Payload.data.title }}\nState: <i>{{ .Payload.data.state.name }}</i>\n<blockquote>{{ .Payload.data.assignee.name }}</blockquote>',
    },
  },
};

export const GOLDEN_CASES = [
  { name: 'push', eventType: 'push', payload: pushPayload, template: pushTemplate },
  { name: 'payment', eventType: 'payment_intent.succeeded', payload: paymentPayload, template: paymentTemplate },
  { name: 'issue-update', eventType: 'Issue.update', payload: issuePayload, template: issueTemplate },
  { name: 'push-default', eventType: 'push', payload: pushPayload, template: null },
  { name: 'payment-default', eventType: 'payment_intent.succeeded', payload: paymentPayload, template: null },
];
