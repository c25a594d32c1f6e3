import type { FastifyRequest } from 'fastify';
import { rememberClient } from './client-of';
import type { Keyring } from './create-keyring';

/** Authenticates a request against the keyring and remembers who it is for the routes. */
export function authenticateWith(keyring: Keyring): (request: FastifyRequest) => boolean {
  return (request) => {
    const identity = keyring.identify(request.headers.authorization, request.headers['x-api-key']);
    if (identity === undefined) return false;
    rememberClient(request, identity, keyring.owners);
    return true;
  };
}
