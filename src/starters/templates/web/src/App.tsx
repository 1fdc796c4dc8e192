import { useCallback, useEffect, useState } from 'react';
import { Chat } from './Chat';
import { signIn, usesSandbox, type Session } from './identity';
import { creditBalance, MODEL, PlatformError } from './platform';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [credits, setCredits] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);

  async function handleSignIn() {
    setSigningIn(true);
    setError(null);
    try {
      setSession(await signIn());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setSigningIn(false);
    }
  }

  function signOut() {
    setSession(null);
    setCredits(null);
  }

  const handleError = useCallback((failure: unknown) => {
    // Identity tokens expire; the platform then answers 401 and the user signs in again.
    if (failure instanceof PlatformError && failure.status === 401) {
      setSession(null);
      setError('Your sign-in has expired. Sign in again.');
    } else {
      setError(messageOf(failure));
    }
  }, []);

  const refreshCredits = useCallback(() => {
    if (session) creditBalance(session.token).then(setCredits, handleError);
  }, [session, handleError]);

  useEffect(refreshCredits, [refreshCredits]);

  return (
    <main>
      <header>
        <h1>__PROJECT_NAME__</h1>
        {session ? (
          <p>
            {shortAddress(session.address)} · {credits ?? '…'} credits · {MODEL}{' '}
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </p>
        ) : (
          <button type="button" onClick={() => void handleSignIn()} disabled={signingIn}>
            {usesSandbox ? 'Sign in (sandbox)' : 'Sign in'}
          </button>
        )}
      </header>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {session && <Chat token={session.token} onAnswered={refreshCredits} onError={handleError} />}
    </main>
  );
}
