import { useState } from 'preact/hooks';

/** Asks for the gateway's bearer token; it is kept in this tab's session storage only. */
export function TokenForm({
  refused,
  onToken,
}: {
  refused: boolean;
  onToken(token: string): void;
}) {
  const [token, setToken] = useState('');
  return (
    <main class="token-gate">
      <form
        class="card"
        data-token-form
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim() !== '') onToken(token.trim());
        }}
      >
        <h1>Keel console</h1>
        <p>
          This gateway needs its bearer token (<code>server.authToken</code>).
        </p>
        {refused ? (
          <p class="problem" role="alert">
            The gateway refused that token.
          </p>
        ) : null}
        <label>
          Token
          <input
            type="password"
            name="token"
            autocomplete="off"
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Open the console</button>
        <p class="muted">
          Kept for this tab only (session storage), sent as Authorization: Bearer.
        </p>
      </form>
    </main>
  );
}
