/**
 * Real gateways for the forward-auth tests: nginx (`auth_request`) and Caddy (`forward_auth`) from
 * the machine's packages, each an unprivileged foreground process on a free loopback port with its
 * own configuration, pid and temporary paths (never the system service). The configurations are
 * the ones docs/gateways.md gives, with the addresses filled in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dieWithTestProcess } from './reaper.js';
import { freePort } from './redis-server.js';

export type GatewayKind = 'nginx' | 'caddy';

export interface Gateway {
  kind: GatewayKind;
  url: string;
  close(): Promise<void>;
}

/** `host:port` of a URL, for the configurations. */
const hostPort = (url: string) => new URL(url).host;

/** The identity headers of contract 4a: passed from Gatehouse's answer, never from the client. */
export const IDENTITY_HEADERS = [
  'Gatehouse-User-Id',
  'Gatehouse-Username',
  'Gatehouse-User-Level',
  'Gatehouse-Tenant-Id',
  'Gatehouse-Group-Id',
  // Contract 3b: how and when the session was made.
  'Gatehouse-Auth-Methods',
  'Gatehouse-Auth-Time',
] as const;

/** Sent only when the user has one (contract 4a). */
const OPTIONAL_HEADERS = ['Gatehouse-Tenant-Id', 'Gatehouse-Group-Id'];

/**
 * The locations each gateway protects, and the check each asks: everything with the plain check,
 * and the step-up page of docs/gateways.md, `/billing/`, with a second factor in the last five
 * minutes (contract 3b).
 */
export const STEP_UP_PATH = '/billing/';
const CHECKS = [
  { path: '/', location: '/_gatehouse/check', query: '' },
  { path: STEP_UP_PATH, location: '/_gatehouse/check-billing', query: '?mfa=1&max_age=300' },
];

export function nginxConfig(dir: string, port: number, gatehouse: string, app: string, auth = true): string {
  const variable = (header: string) =>
    `$gatehouse_${header.slice('Gatehouse-'.length).toLowerCase().replace('-', '_')}`;
  const upstreamVariable = (header: string) => `$upstream_http_${header.toLowerCase().replaceAll('-', '_')}`;
  return `worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # Kept-alive connections to Gatehouse and the application: without them every check opens a
  # new TCP connection (a quarter of the throughput in the benchmark).
  upstream gatehouse {
    server ${gatehouse};
    keepalive 16;
  }
  upstream application {
    server ${app};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    # nginx's defaults, stated because the recipe relies on them: a header whose name holds an
    # underscore (Gatehouse_User_Level, which CGI and WSGI read as Gatehouse-User-Level) is dropped.
    underscores_in_headers off;
    ignore_invalid_headers on;

${CHECKS.map(
  ({ location, query }) => `    location = ${location} {
      internal;
      proxy_pass http://gatehouse/api/v1/session/check/${query};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      # What Gatehouse needs to judge the original request's Origin (the check itself is a GET).
      proxy_set_header X-Forwarded-Method $request_method;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      # The answer's headers must fit here: a 200-character non-ASCII username is up to 1.8 KB
      # percent-encoded, and imported ids have no length limit (the default is one memory page).
      proxy_buffer_size 16k;
      proxy_busy_buffers_size 16k;
    }
`,
).join('')}
${CHECKS.map(
  ({ path, location }) => `    location ${path} {
${
  auth
    ? `      auth_request ${location};
${IDENTITY_HEADERS.map((header) => `      auth_request_set ${variable(header)} ${upstreamVariable(header)};`).join('\n')}
      # Set from Gatehouse's answer: a header of the same name sent by the client is replaced, and
      # one Gatehouse did not send (an empty value) is not passed at all.
${IDENTITY_HEADERS.map((header) => `      proxy_set_header ${header} ${variable(header)};`).join('\n')}
`
    : ''
}      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass http://application;
    }
`,
).join('')}    # Gatehouse unreachable or failing: the gateway's 500 becomes 503 with Retry-After.
    error_page 500 = @unavailable;
    location @unavailable {
      add_header Retry-After 5 always;
      return 503;
    }
  }
}
`;
}

export function caddyConfig(dir: string, port: number, gatehouse: string, app: string): string {
  return `{
  admin off
  auto_https off
  storage file_system ${dir}/storage
}
http://127.0.0.1:${port} {
  # In a route block the steps run in this order (Caddy would otherwise order them itself).
  route {
    # Every header a client sent that an application could read as Gatehouse-*: Caddy keeps
    # names in Go's canonical form (Gatehouse-User-Level, Gatehouse_user_level), so this one
    # prefix covers any case and both the - and _ spellings.
    request_header -Gatehouse*
    # A client's Connection header could name the identity headers, which the proxy would then
    # remove after forward_auth set them: it is replaced, by "Upgrade" alone for an upgrade.
    request_header -Connection
    @upgrade header Upgrade *
    request_header @upgrade Connection Upgrade
    # The step-up page asks for a second factor in the last five minutes; the rest a session.
    @billing path ${STEP_UP_PATH}*
    forward_auth @billing ${gatehouse} {
      uri /api/v1/session/check/?mfa=1&max_age=300
      copy_headers ${IDENTITY_HEADERS.join(' ')}
    }
    @other not path ${STEP_UP_PATH}*
    forward_auth @other ${gatehouse} {
      uri /api/v1/session/check/
      copy_headers ${IDENTITY_HEADERS.join(' ')}
    }
    # Caddy 2.6 copies a header Gatehouse did not send (a user without tenant or group) as its
    # unresolved placeholder text: such a header is removed before the application sees it.
${OPTIONAL_HEADERS.map(
  (header) => `    @no_${header.slice(10).toLowerCase().replace('-', '_')} header_regexp ${header} ^\\{http\\.
    request_header @no_${header.slice(10).toLowerCase().replace('-', '_')} -${header}`,
).join('\n')}
    reverse_proxy ${app}
  }
  # Gatehouse unreachable: 503 with Retry-After, not the gateway's 502.
  handle_errors {
    header Retry-After 5
    respond 503
  }
}
`;
}

async function waitListening(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}): ${log()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(500) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`the gateway did not listen: ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Starts `kind` in front of `appUrl`, asking `gatehouseUrl` about each request (`auth: false`, nginx
 * only: a plain proxy, the benchmark's ceiling).
 */
export async function startGateway(
  kind: GatewayKind,
  gatehouseUrl: string,
  appUrl: string,
  options: { auth?: boolean } = {},
): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), `gh-${kind}-`));
  const port = await freePort();
  const config = join(dir, kind === 'nginx' ? 'nginx.conf' : 'Caddyfile');
  writeFileSync(
    config,
    kind === 'nginx'
      ? nginxConfig(dir, port, hostPort(gatehouseUrl), hostPort(appUrl), options.auth ?? true)
      : caddyConfig(dir, port, hostPort(gatehouseUrl), hostPort(appUrl)),
  );
  // Each gateway leads a process group of its own, killed whole: nginx's workers outlive a
  // killed master.
  const child = dieWithTestProcess(
    kind === 'nginx'
      ? spawn('nginx', ['-c', config, '-p', dir, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], {
          stdio: 'ignore',
          detached: true,
        })
      : spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
          stdio: ['ignore', 'ignore', 'ignore'],
          env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
          detached: true,
        }),
    { group: true },
  );
  const log = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitListening(url, child, log);
  } catch (error) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
    throw error;
  }
  return {
    kind,
    url,
    close: async () => {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
