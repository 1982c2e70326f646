declare module '../../platform/queue/jobs.js' {
  interface JobMap {
    /** Mail a sign-in code to the address when it belongs to an active user (POST /auth/request-otp). */
    'auth.login-code': { email: string };
  }
}

export {};
