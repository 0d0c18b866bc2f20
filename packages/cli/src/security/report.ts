// How a command's failure reaches the user: one line on stderr and the exit code.
import { AuthenticationError, AuthorizationError } from '@kstreams/core';
import { explainKafkaError } from './explain.ts';
import type { KafkaCall } from './kafka-call.ts';
import { SecurityOptionsError } from './options-error.ts';

/** Prints `error` and returns the exit code: 1 for a refusal by the cluster, 2 otherwise. */
export function reportError(error: unknown, call: KafkaCall | undefined, print: (s: string) => void): number {
  const message = (error as Error).message ?? String(error);
  if (error instanceof SecurityOptionsError || call === undefined) {
    print(`kstreams: ${message}\n`);
    return 2;
  }
  const explained = explainKafkaError(error, call) ?? (error as Error);
  print(`kstreams ${call.command}: ${explained.message ?? message}\n`);
  return explained instanceof AuthenticationError || explained instanceof AuthorizationError ? 1 : 2;
}
