declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Served without the bearer token: only files that hold no data (the console's page, script
     * and styles). Everything the console shows still needs the token.
     */
    public?: boolean;
  }
}

/** Route `config` of a route that needs no bearer token (see `FastifyContextConfig.public`). */
export const PUBLIC_ROUTE = { public: true } as const;
