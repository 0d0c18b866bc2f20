/** Bad security options: a usage error (exit 2). The message names the option, never a secret. */
export class SecurityOptionsError extends Error {}
