/**
 * What stands in for a secret wherever one is not shown: in the client's error messages and logs
 * (src/client/redact.ts) and in the emulator's state dumps. Here, not in the client, so that the
 * emulator shares the word without importing the client it stands in for.
 */
export const REDACTED = "[redacted]";
