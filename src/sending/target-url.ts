/** Why a destination URL cannot be sent to (not http/https, unparsable), or null when it can. */
export function checkTargetUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'invalid destination URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `unsupported URL scheme "${parsed.protocol.replace(/:$/, '')}": only http and https are allowed`;
  }
  return null;
}
