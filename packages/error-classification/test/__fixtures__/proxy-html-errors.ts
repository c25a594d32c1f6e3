import type { ErrorFixture } from './error-fixture';

const NGINX_PAGES =
  'nginx src/http/ngx_http_special_response.c (the built-in error pages, byte for byte)';
const CLOUDFLARE_5XX =
  'https://support.cloudflare.com/hc/en-us/articles/115003011431-5xx-Server-Error (codes and wording; page layout as in the issues cited with 520 and 524)';
const ENVOY = 'envoyproxy/envoy test/integration (local reply "upstream connect error …")';

/** nginx's built-in error page for `status` and its reason phrase. */
function nginxPage(statusLine: string): string {
  return [
    '<html>',
    `<head><title>${statusLine}</title></head>`,
    '<body>',
    `<center><h1>${statusLine}</h1></center>`,
    '<hr><center>nginx</center>',
    '</body>',
    '</html>',
    '',
  ].join('\r\n');
}

/**
 * Cloudflare's 5xx page for `host`, abridged: the doctype, title and header, where the code and
 * its wording are; the styling and the browser / Cloudflare / host status boxes are left out.
 */
function cloudflarePage(host: string, code: number, wording: string): string {
  return [
    '<!DOCTYPE html>',
    '<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->',
    '<!--[if gt IE 8]><!--> <html class="no-js" lang="en-US"> <!--<![endif]-->',
    '<head>',
    `<title>${host} | ${code}: ${wording}</title>`,
    '<meta charset="UTF-8" />',
    '<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />',
    '</head>',
    '<body>',
    '<div id="cf-wrapper">',
    '    <div id="cf-error-details" class="p-0">',
    '        <header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">',
    '            <h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">',
    `              <span class="inline-block">${wording}</span>`,
    `              <span class="code-label">Error code ${code}</span>`,
    '            </h1>',
    '            <div>',
    `               Visit <a href="https://www.cloudflare.com/5xx-error-landing?utm_source=errorcode_${code}&utm_campaign=${host}" target="_blank" rel="noopener noreferrer">cloudflare.com</a> for more information.`,
    '            </div>',
    '        </header>',
    '    </div>',
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * HTML and plain-text error pages of the proxies in front of providers (Cloudflare, nginx,
 * load balancers, envoy): as the SDKs throw them (status and text body), as CLIs log them, and
 * as bare log strings.
 */
export const PROXY_HTML_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'nginx 502 Bad Gateway page through the openai SDK',
    source: `${NGINX_PAGES}; public reports such as https://github.com/nearai/ironclaw/issues/1994`,
    kind: 'server_error',
    http: { sdk: 'openai', status: 502, body: nginxPage('502 Bad Gateway') },
  },
  {
    name: 'nginx 503 Service Temporarily Unavailable page through the anthropic SDK',
    source: NGINX_PAGES,
    kind: 'server_error',
    http: { sdk: 'anthropic', status: 503, body: nginxPage('503 Service Temporarily Unavailable') },
  },
  {
    name: 'nginx 504 Gateway Time-out page through the openai SDK',
    source: NGINX_PAGES,
    kind: 'server_error',
    http: { sdk: 'openai', status: 504, body: nginxPage('504 Gateway Time-out') },
  },
  {
    name: 'Cloudflare 520 page through the anthropic SDK',
    source: 'https://github.com/anthropics/claude-code/issues/3197',
    kind: 'server_error',
    http: {
      sdk: 'anthropic',
      status: 520,
      body: cloudflarePage('api.anthropic.com', 520, 'Web server is returning an unknown error'),
    },
  },
  {
    name: 'Cloudflare 524 page through the openai SDK',
    source:
      'https://github.com/anthropics/claude-code/issues/16737 and https://github.com/acheong08/ChatGPT/issues/447',
    kind: 'server_error',
    http: {
      sdk: 'openai',
      status: 524,
      body: cloudflarePage('api.example-gateway.com', 524, 'A timeout occurred'),
    },
  },
  {
    name: 'log: bare nginx 502 page, no status attached',
    source: NGINX_PAGES,
    kind: 'server_error',
    status: 502,
    error: nginxPage('502 Bad Gateway'),
  },
  {
    name: 'log: bare nginx 504 Gateway Time-out page, no status attached',
    source: NGINX_PAGES,
    kind: 'server_error',
    status: 504,
    error: nginxPage('504 Gateway Time-out'),
  },
  {
    name: 'log: bare load-balancer 503 page (no server line), no status attached',
    source: 'AWS Elastic Load Balancing HTTP 503 page (awselb/2.0), as reported in public logs',
    kind: 'server_error',
    status: 503,
    error:
      '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n</body>\r\n</html>\r\n',
  },
  {
    name: 'log: bare Cloudflare 522 page, no status attached',
    source: CLOUDFLARE_5XX,
    kind: 'server_error',
    status: 522,
    error: cloudflarePage('api.example-gateway.com', 522, 'Connection timed out'),
  },
  {
    name: 'log: bare Cloudflare 521 page, no status attached',
    source: CLOUDFLARE_5XX,
    kind: 'server_error',
    status: 521,
    error: cloudflarePage('api.example-gateway.com', 521, 'Web server is down'),
  },
  {
    name: 'log: bare Cloudflare 523 page, no status attached',
    source: CLOUDFLARE_5XX,
    kind: 'server_error',
    status: 523,
    error: cloudflarePage('api.example-gateway.com', 523, 'Origin is unreachable'),
  },
  {
    name: 'log: Claude Code retry line with a Cloudflare 504 title',
    source: 'https://github.com/anthropics/claude-code/issues/6781',
    kind: 'server_error',
    status: 504,
    error:
      'API Error (api.anthropic.com | 504: Gateway time-out) · Retrying in 1 seconds… (attempt 1/10)',
  },
  {
    name: 'log: Claude Code line with a Cloudflare 520 page',
    source: 'https://github.com/anthropics/claude-code/issues/3197',
    kind: 'server_error',
    status: 520,
    error: `API Error (520 ${cloudflarePage('api.anthropic.com', 520, 'Web server is returning an unknown error')})`,
  },
  {
    name: 'log: axios-style status line with a Cloudflare 524 page',
    source: 'https://github.com/langgenius/dify/issues/12276',
    kind: 'server_error',
    status: 524,
    error: `Failed to invoke tool: Request failed with status code 524 and ${cloudflarePage('api.dify.ai', 524, 'A timeout occurred')}`,
  },
  {
    name: 'log: envoy upstream reset, no status attached',
    source: ENVOY,
    kind: 'server_error',
    error:
      'upstream connect error or disconnect/reset before headers. reset reason: connection termination',
  },
  {
    name: 'log: envoy no healthy upstream, no status attached',
    source: 'envoyproxy/envoy source/common/router/router.cc (local reply "no healthy upstream")',
    kind: 'server_error',
    error: 'no healthy upstream',
  },
  {
    name: 'log: httpx status error for a 502 from a local server',
    source: 'https://github.com/abetlen/llama-cpp-python/issues/1055',
    kind: 'server_error',
    status: 502,
    error:
      "HTTPStatusError(\"Server error '502 Bad Gateway' for url 'http://localhost:8000/v1/chat/completions'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/502\")",
  },
];
