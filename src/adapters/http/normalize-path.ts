/** Contract 1: `/api/v1/login` answers the same as the spec's `/api/v1/login/`. */
export function normalizedPath(path: string): string {
  return path.startsWith('/api/') && !path.endsWith('/') && !path.endsWith('.json') ? `${path}/` : path;
}

/** The same for a request target with its query (`/api/v1/sessions?limit=2`). */
export function normalizedUrl(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? normalizedPath(url) : `${normalizedPath(url.slice(0, query))}${url.slice(query)}`;
}
