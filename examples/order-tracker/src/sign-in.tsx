// The sign-in form: a demo customer to pick when the simulator serves, else a username and password.
import { useState, type FormEvent } from 'react';
import type { TrackerSettings } from './settings';

export function SignIn({
  demo,
  onSignIn,
}: {
  demo: TrackerSettings['demo'];
  onSignIn: (username: string, password: string) => Promise<string | null>;
}) {
  const [chosen, setChosen] = useState(0);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const login = demo.length > 0 ? demo[chosen] : { username, password };
    if (!login) return;
    setBusy(true);
    setProblem(await onSignIn(login.username, login.password));
    setBusy(false);
  };

  return (
    <form className="sign-in" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in to follow your order</h2>
      {demo.length > 0 ? (
        <label>
          Demo customer
          <select name="demo" value={chosen} onChange={(event) => setChosen(Number(event.target.value))}>
            {demo.map((login, i) => (
              <option key={login.username} value={i}>
                {login.username} — {login.description}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <>
          <label>
            Username
            <input
              name="username"
              autoComplete="username"
              required
              value={username}
              onChange={(event) => setUsername(event.target.value)}
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </label>
        </>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="problem" role="alert">
        {problem}
      </p>
    </form>
  );
}
