// The identity a request authenticated as, kept beside the request (not on it), and the questions
// routes ask of it: may it name this model, may it see this session.
import type { FastifyRequest } from 'fastify';
import type { ClientIdentity, KeyTicket } from './create-keyring';
import type { SessionOwners } from './open-session-owners';

const identities = new WeakMap<
  FastifyRequest,
  { identity: ClientIdentity; owners: SessionOwners }
>();

export function rememberClient(
  request: FastifyRequest,
  identity: ClientIdentity,
  owners: SessionOwners,
): void {
  identities.set(request, { identity, owners });
}

const tickets = new WeakMap<FastifyRequest, KeyTicket>();

/** Keeps an admitted request's reservation beside it, for the call it makes. */
export function rememberTicket(request: FastifyRequest, ticket: KeyTicket): void {
  tickets.set(request, ticket);
}

/**
 * The request's reservation under its key's `rpm`/`tpm`, if it has one. A compatible call names it
 * with its call id (`ticket.sessionId`), so that the call's end corrects its own reservation.
 */
export function ticketOf(request: FastifyRequest): KeyTicket | undefined {
  return tickets.get(request);
}

/** Who sent the request; `undefined` when the gateway needs no credential. */
export function clientOf(request: FastifyRequest): ClientIdentity | undefined {
  return identities.get(request)?.identity;
}

/** Whether the request's key may send `model` (a route name or `providerId/model`). */
export function mayName(request: FastifyRequest, model: string): boolean {
  return clientOf(request)?.models?.has(model) ?? true;
}

/**
 * Which sessions the request's key may see: its own (wherever it created them), or any for an
 * admin or when the gateway needs no key.
 */
export async function visibleSessions(
  request: FastifyRequest,
): Promise<(sessionId: string) => boolean> {
  const known = identities.get(request);
  if (known === undefined || known.identity.admin) return () => true;
  const { keyId } = known.identity;
  if (keyId === undefined) return () => false;
  const own = await known.owners.sessionsOf(keyId);
  return (sessionId) => own.has(sessionId);
}
