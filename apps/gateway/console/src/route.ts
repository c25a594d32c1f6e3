/** The console's views, addressed by the URL's hash so that the server serves one page. */
export type Route =
  | { view: 'sessions' }
  | { view: 'session'; sessionId: string }
  | { view: 'providers' };

export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/providers') return { view: 'providers' };
  const match = /^\/sessions\/(.+)$/.exec(path);
  if (match !== null) {
    const sessionId = decodeURIComponent(match[1] as string);
    if (SESSION_ID.test(sessionId)) return { view: 'session', sessionId };
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
    default: {
      const unexpected: never = route;
      return unexpected;
    }
  }
}
