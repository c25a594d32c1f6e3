/** The console's views, addressed by the URL's hash so that the server serves one page. */
export type Route =
  | { view: 'sessions' }
  | { view: 'session'; sessionId: string }
  | { view: 'calls' }
  | { view: 'call'; callId: string }
  | { view: 'providers' }
  | { view: 'keys' };

export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/providers') return { view: 'providers' };
  if (path === '/calls') return { view: 'calls' };
  if (path === '/keys') return { view: 'keys' };
  const match = /^\/(sessions|calls)\/(.+)$/.exec(path);
  if (match !== null) {
    const id = decodeURIComponent(match[2] as string);
    if (SESSION_ID.test(id))
      return match[1] === 'calls'
        ? { view: 'call', callId: id }
        : { view: 'session', sessionId: id };
  }
  return { view: 'sessions' };
}

export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'sessions':
      return '#/';
    case 'providers':
      return '#/providers';
    case 'session':
      return `#/sessions/${encodeURIComponent(route.sessionId)}`;
    case 'calls':
      return '#/calls';
    case 'keys':
      return '#/keys';
    case 'call':
      return `#/calls/${encodeURIComponent(route.callId)}`;
    default: {
      const unexpected: never = route;
      return unexpected;
    }
  }
}
