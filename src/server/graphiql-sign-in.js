// GraphiQL's sign-in bar, run in the browser (useGraphiQLPage puts it into the page, after
// `window.orderGraphSignIn = { endpoint, login, demo }`). It logs in with the Login
// mutation and keeps the access token in this page's memory only (never in storage): every
// request the page sends to the endpoint carries it as `Authorization: Bearer …`, unless
// the Headers pane sets an Authorization of its own. Closing or reloading the page forgets it.
// It also fits GraphiQL to the window under the bar and gives the page its landmarks and heading.

// A block, not a function: its names stay out of the page's globals, and each part below is
// a small function of its own.
{
  const { endpoint, login, demo } = window.orderGraphSignIn;
  const endpointUrl = new URL(endpoint, location.href).href;
  const nativeFetch = window.fetch.bind(window);
  let session = null; // { username, token, expiresAt }

  // The page is its window: the bar on top, GraphiQL in the rest, nothing to scroll but
  // GraphiQL's own panes. GraphiQL sizes itself 100vh, more than is left under the bar; and
  // its editors are positioned against the page (none of their ancestors is positioned), so
  // their 5,000 px line-number gutters made the document that tall: #root is positioned and
  // clips them.
  //
  // The bar wraps instead of widening the page: the heading and the form share a line at
  // desktop width; on a phone (390 px) the form gets a line of its own, the picker one of its
  // own in it, with Sign in and the status below. The picker's label takes at least 20rem and
  // grows into what is left; the closed picker cuts its text at its width, the open list
  // shows each option whole. Without min-width: 0 a select is as wide as its longest option
  // (1,144 px here) and no flex item would shrink below that.
  //
  // GraphiQL's logo is not shown: it repeats the bar's heading (Order Graph), in a grey below
  // WCAG contrast, and on a phone it wraps over the tab row.
  //
  // GraphiQL's tabs are framer-motion Reorder items held within the tab strip. When the strip
  // or a tab changes size (the default tabs are added one by one), framer shifts each tab's
  // drag offset to keep its relative place in the strip, and the offset stays: tabs carry
  // offsets of hundreds of pixels, which GraphiQL's style hides unless the tab has focus.
  // Pressing a tab focuses it, the offset shows, the tab leaves the pointer and the release
  // lands on the strip: no click, the tab is not selected (3 presses in 5 in Chromium). Here a
  // tab's offset shows only while it is dragged (the pointer moved while pressed).
  const STYLE = `
    body { display: flex; flex-direction: column; height: 100vh; height: 100dvh; margin: 0; }
    #root { flex: 1; min-height: 0; height: auto !important; position: relative; overflow: hidden; }
    #root .graphiql-container { height: 100%; width: 100%; }
    #root .graphiql-logo { display: none; }
    .graphiql-tabs:not([data-dragging]) > .graphiql-tab { transform: none !important; }
    #order-graph-bar { flex: none; display: flex; flex-wrap: wrap; gap: 0.4rem 0.75rem; align-items: center;
      padding: 0.4rem 1rem; font: 14px system-ui, sans-serif; border-bottom: 1px solid #d0d4db; background: #f6f7f9; color: #1f2430; }
    #order-graph-bar h1 { margin: 0; font-size: inherit; font-weight: 700; white-space: nowrap; }
    #order-graph-sign-in { flex: 1 1 20rem; min-width: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 0.5rem; align-items: center; }
    #order-graph-sign-in label, #order-graph-sign-in button { white-space: nowrap; }
    #order-graph-sign-in label { display: flex; flex: 1 1 20rem; min-width: 0; gap: 0.4rem; align-items: center; }
    #order-graph-sign-in select { flex: 1 1 0; min-width: 0; }
    #order-graph-sign-in input { flex: 1 1 10rem; min-width: 0; }
    #order-graph-sign-in input, #order-graph-sign-in select, #order-graph-sign-in button { font: inherit; padding: 0.2rem 0.5rem; min-height: 1.75rem; }
    #order-graph-sign-in .status { flex: 1 1 14rem; min-width: 0; color: #4a5160; }
    #order-graph-sign-in .status.error { color: #b3261e; }
    #order-graph-sign-in .credentials { display: contents; }
    #order-graph-sign-in [hidden] { display: none; }
    @media (max-width: 40rem) {
      /* Phones zoom into a field whose text is under 16px when it takes focus, and stay zoomed. */
      #order-graph-bar { padding: 0.5rem 0.75rem; }
      #order-graph-sign-in input, #order-graph-sign-in select, #order-graph-sign-in button { font-size: 16px; min-height: 2.25rem; }
      /* Four tabs do not fit across a phone: they wrap onto a second row rather than scroll out of sight. */
      #root .graphiql-session-header { height: auto; flex-wrap: wrap; }
      #root .graphiql-tabs { flex-wrap: wrap; overflow: visible; }
      /* GraphiQL sets the answer beside the editors, which leaves it some 50 px of a phone's
         width: stacked, each has the whole width. Its drag bar only resizes sideways. */
      .graphiql-container #graphiql-session { flex-direction: column; }
      .graphiql-container #graphiql-session > .graphiql-horizontal-drag-bar { display: none; }
    }`;

  /** The request's options with the session's bearer, for the endpoint and only while signed in. */
  const withToken = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (!session || `${url.origin}${url.pathname}` !== endpointUrl) return init;
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${session.token}`);
    return { ...init, headers };
  };

  const field = (html) => {
    const template = document.createElement('template');
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  };
  const text = (value) => String(value).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  /** The demo customers to pick from, or a username and password to type. */
  const credentialFields = () => {
    const credentials = document.createElement('span');
    credentials.className = 'credentials';
    if (demo.length > 0) {
      const options = demo.map((c, i) => `<option value="${i}">${text(c.username)} — ${text(c.description)}</option>`).join('');
      credentials.append(field(`<label>Demo customer <select name="demo">${options}</select></label>`));
    } else {
      credentials.append(field('<input name="username" autocomplete="username" placeholder="Username" required>'));
      credentials.append(field('<input name="password" type="password" autocomplete="current-password" placeholder="Password" required>'));
    }
    return credentials;
  };

  const bar = document.createElement('form');
  bar.id = 'order-graph-sign-in';
  bar.setAttribute('aria-label', 'Sign in');
  const credentials = credentialFields();
  const signIn = field('<button type="submit">Sign in</button>');
  const signOut = field('<button type="button" hidden>Sign out</button>');
  const status = field(
    '<span class="status" role="status" aria-live="polite">Not signed in: sign in to run the queries as a customer.</span>',
  );
  bar.append(credentials, signIn, signOut, status);
  // The page's banner: its heading, then the form.
  const header = document.createElement('header');
  header.id = 'order-graph-bar';
  header.append(field('<h1>Order Graph</h1>'), bar);

  const show = (message, error = false) => {
    status.textContent = message;
    status.classList.toggle('error', error);
    credentials.hidden = signIn.hidden = session !== null;
    signOut.hidden = session === null;
  };

  const chosenLogin = () =>
    demo.length > 0
      ? demo[Number(bar.elements.demo.value)]
      : { username: bar.elements.username.value, password: bar.elements.password.value };

  /** Runs the Login mutation, keeps the token it returns and says how it went. */
  const logIn = async (chosen) => {
    const response = await nativeFetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: login, variables: { username: chosen.username, password: chosen.password } }),
    });
    const { data, errors } = await response.json();
    if (!data?.login) return show(`Sign-in refused: ${errors?.[0]?.message ?? `HTTP ${response.status}`}`, true);
    session = { username: chosen.username, token: data.login.accessToken, expiresAt: new Date(data.login.accessTokenExpiresAt) };
    if (demo.length === 0) bar.elements.password.value = '';
    const until = session.expiresAt.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
    show(`Signed in as ${session.username} (until ${until}): run a tab.`);
  };

  const onSubmit = async (event) => {
    event.preventDefault();
    const chosen = chosenLogin();
    signIn.disabled = true;
    show('Signing in…');
    try {
      await logIn(chosen);
    } catch {
      show('Sign-in failed: the gateway could not be reached.', true);
    } finally {
      signIn.disabled = false;
    }
  };

  const onSignOut = () => {
    session = null;
    show('Signed out: the token is forgotten.');
  };

  /** Marks the tab strip while a tab is dragged (pressed, then moved past framer's 3 px), so its offset shows then only. */
  const onTabPress = (event) => {
    const strip = event.target instanceof Element ? event.target.closest('.graphiql-tab')?.parentElement : null;
    if (!strip) return;
    const moved = (move) => {
      if (Math.hypot(move.clientX - event.clientX, move.clientY - event.clientY) > 3) strip.dataset.dragging = '';
    };
    const released = () => {
      delete strip.dataset.dragging;
      window.removeEventListener('pointermove', moved, true);
      window.removeEventListener('pointerup', released, true);
      window.removeEventListener('pointercancel', released, true);
    };
    window.addEventListener('pointermove', moved, true);
    window.addEventListener('pointerup', released, true);
    window.addEventListener('pointercancel', released, true);
  };

  window.fetch = (input, init = {}) => nativeFetch(input, withToken(input, init));
  bar.addEventListener('submit', onSubmit);
  signOut.addEventListener('click', onSignOut);
  window.addEventListener('pointerdown', onTabPress, true);
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.append(style);
  document.body.prepend(header);
  // GraphiQL is the page's main content (its root element is React's, its attributes are not).
  document.getElementById('root')?.setAttribute('role', 'main');
}
