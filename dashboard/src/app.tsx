import { useEffect, useState } from 'react';
import { Provider } from 'urql';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { hasRefreshToken, logout, onAuthChange } from './lib/auth';
import { createGraphQLClient } from './lib/graphql';
import { OAUTH_CALLBACK_PATH } from './lib/oauth';
import { WorkspaceProvider, useWorkspace } from './lib/session';
import { INVITE_PATH, InvitePage } from './pages/invite';
import { OAuthCallbackPage } from './pages/oauth-callback';
import { SignInPage } from './pages/sign-in';
import { HOME, ROUTES } from './routes';

export function App() {
  const [signedIn, setSignedIn] = useState(hasRefreshToken);
  const [client, setClient] = useState(createGraphQLClient);
  const [location] = useLocation();
  const inviteToken = INVITE_PATH.exec(location)?.[1];
  useEffect(
    () =>
      onAuthChange((now) => {
        setSignedIn(now);
        // A new client per session, so nothing cached for one user is shown to the next.
        setClient(createGraphQLClient());
      }),
    [],
  );
  return (
    <Provider value={client}>
      {/* The callback comes first: a sign-in that returns to a tab already signed in replaces that session. */}
      {location === OAUTH_CALLBACK_PATH ? (
        <OAuthCallbackPage />
      ) : inviteToken ? (
        <InvitePage token={decodeURIComponent(inviteToken)} signedIn={signedIn} />
      ) : signedIn ? (
        <WorkspaceProvider fallback={(error) => <div className="loading">{error ?? 'Loading…'}</div>}>
          <Shell />
        </WorkspaceProvider>
      ) : (
        <SignInPage />
      )}
    </Provider>
  );
}

function Shell() {
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const nav = ROUTES.filter((r) => r.nav).sort((a, b) => a.nav!.order - b.nav!.order);
  useEffect(() => setMenuOpen(false), [location]);
  return (
    <div className="shell">
      <header className="topbar">
        <button type="button" className="menu-toggle small" aria-label="Menu" onClick={() => setMenuOpen((o) => !o)}>
          ☰
        </button>
        <Link href={HOME} className="brand">
          relay
        </Link>
        <ProjectSwitcher />
        <UserMenu />
      </header>
      <nav className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
        {nav.map((r) => {
          const Count = r.nav!.count;
          return (
            <Link key={r.path} href={r.path} className={location === r.path || location.startsWith(`${r.path}/`) ? 'active' : undefined}>
              {r.nav!.label}
              {Count && <Count />}
            </Link>
          );
        })}
        {/* Served by the API itself (Swagger UI over /v1/openapi.json), so a full page load, not a client route. */}
        <a href="/docs" className="sidenav-docs">
          API reference
        </a>
      </nav>
      <main className="content">
        <Switch>
          {ROUTES.map((r) => (
            <Route key={r.path} path={r.path} component={r.component} />
          ))}
          <Route path="/">
            <Redirect to={HOME} replace />
          </Route>
          <Route>
            <div className="empty">No such page. <Link href={HOME}>Back to events</Link></div>
          </Route>
        </Switch>
      </main>
    </div>
  );
}

/** Organization and project in one select, grouped by organization. */
function ProjectSwitcher() {
  const { organizations, projects, project, role, selectProject } = useWorkspace();
  const [, navigate] = useLocation();
  return (
    <label className="switcher">
      <span className="sr-only">Project</span>
      <select
        value={project.id}
        onChange={(e) => {
          selectProject(e.target.value);
          navigate(HOME);
        }}
      >
        {organizations.map((org) => (
          <optgroup key={org.id} label={`${org.name} (${org.role})`}>
            {projects
              .filter((p) => p.organizationId === org.id)
              .map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
      <span className="badge" data-testid="role">
        {role}
      </span>
    </label>
  );
}

function UserMenu() {
  const { user } = useWorkspace();
  return (
    <div className="user">
      <span className="hide-narrow muted">{user.email}</span>
      <button type="button" className="small" onClick={() => void logout()}>
        Log out
      </button>
    </div>
  );
}
