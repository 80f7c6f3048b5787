import { clientCommands, relayProgram, runRelay } from './commands';

/** `relay`, the webhook relay's client: log in to a relay and forward its live events to your machine. */
const relay = relayProgram(
  'The webhook relay client: log in to a relay, forward its live events to a server on your machine (listen), send test events (trigger), print the schemas and TypeScript types of a source’s events (schema)',
  'the version of this CLI',
);
clientCommands(relay);
runRelay(relay);
