import type { TurnEvent } from '@keel/spec';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { CallView } from './call-view';
import { CallsView } from './calls-view';
import { createApiClient } from './create-api-client';
import { createEventHub } from './event-hub';
import { followStream, type StreamStatus } from './follow-stream';
import { Console } from './hooks';
import { KeysView } from './keys-view';
import { ProvidersView } from './providers-view';
import { hrefOf, parseRoute, type Route } from './route';
import { SessionView } from './session-view';
import { SessionsView } from './sessions-view';
import { TokenForm } from './token-form';

const TOKEN_KEY = 'keel.console.token';

type Auth = { state: 'ready'; token: string | undefined } | { state: 'needed'; refused: boolean };

/** A stored token, else whether the page says the gateway wants one (it never holds the token). */
function initialAuth(): Auth {
  const stored = sessionStorage.getItem(TOKEN_KEY);
  if (stored !== null && stored !== '') return { state: 'ready', token: stored };
  return document.documentElement.dataset['auth'] === 'bearer'
    ? { state: 'needed', refused: false }
    : { state: 'ready', token: undefined };
}

export function App() {
  const [auth, setAuth] = useState<Auth>(initialAuth);
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  if (auth.state === 'needed') {
    return (
      <TokenForm
        refused={auth.refused}
        onToken={(token) => {
          sessionStorage.setItem(TOKEN_KEY, token);
          setAuth({ state: 'ready', token });
        }}
      />
    );
  }
  return (
    <Authorized
      key={auth.token ?? ''}
      token={auth.token}
      route={route}
      onUnauthorized={() => {
        sessionStorage.removeItem(TOKEN_KEY);
        setAuth({ state: 'needed', refused: auth.token !== undefined });
      }}
      onForget={() => {
        sessionStorage.removeItem(TOKEN_KEY);
        setAuth(initialAuth());
      }}
    />
  );
}

interface AuthorizedProps {
  token: string | undefined;
  route: Route;
  onUnauthorized(): void;
  onForget(): void;
}

function Authorized({ token, route, onUnauthorized, onForget }: AuthorizedProps) {
  const refused = useRef(onUnauthorized);
  refused.current = onUnauthorized;
  const client = useMemo(
    () => createApiClient({ token, onUnauthorized: () => refused.current() }),
    [token],
  );
  const hub = useMemo(createEventHub, []);
  const [status, setStatus] = useState<StreamStatus>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    void followStream(client, '/v1/events?follow=1', {
      signal: controller.signal,
      onEvent(name, data) {
        if (name === 'turn-event') hub.publish(data as TurnEvent);
      },
      onStatus: setStatus,
    });
    return () => controller.abort();
  }, [client, hub]);

  return (
    <Console.Provider value={{ client, hub }}>
      <header class="top">
        <a class="brand" href={hrefOf({ view: 'sessions' })}>
          Keel console
        </a>
        <nav>
          <a
            href={hrefOf({ view: 'sessions' })}
            aria-current={route.view === 'sessions' || route.view === 'session'}
          >
            Sessions
          </a>
          <a
            href={hrefOf({ view: 'calls' })}
            aria-current={route.view === 'calls' || route.view === 'call'}
          >
            Calls
          </a>
          <a href={hrefOf({ view: 'providers' })} aria-current={route.view === 'providers'}>
            Providers
          </a>
          <a href={hrefOf({ view: 'keys' })} aria-current={route.view === 'keys'}>
            Keys
          </a>
        </nav>
        <span
          class={`stream stream-${status}`}
          data-stream={status}
          title="the gateway's event stream"
        >
          {status === 'live' ? 'live' : status}
        </span>
        {token === undefined ? null : (
          <button type="button" class="link" onClick={onForget}>
            Forget token
          </button>
        )}
      </header>
      <main>{viewOf(route)}</main>
    </Console.Provider>
  );
}

function viewOf(route: Route) {
  switch (route.view) {
    case 'sessions':
      return <SessionsView />;
    case 'session':
      return <SessionView key={route.sessionId} sessionId={route.sessionId} />;
    case 'calls':
      return <CallsView />;
    case 'call':
      return <CallView key={route.callId} callId={route.callId} />;
    case 'providers':
      return <ProvidersView />;
    case 'keys':
      return <KeysView />;
    default: {
      const unexpected: never = route;
      return unexpected;
    }
  }
}
