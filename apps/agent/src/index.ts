/** Placeholder of the local transfer agent; its issue builds the CLI serving 127.0.0.1. */
export const AGENT_NAME = 'cumulo-agent';
