// A stand-in for OpenAI's sign-in service on 127.0.0.1, for Codex's device-code sign-in
// (`chat-gpt-device-code`). Codex reads the service's address from CODEX_APP_SERVER_LOGIN_ISSUER;
// the flow it runs (codex-rs login/src/device_code_auth.rs):
//
//   POST /api/accounts/deviceauth/usercode  {client_id}  -> {device_auth_id, user_code, interval}
//   the user opens  GET /codex/device  and enters the code there
//   POST /api/accounts/deviceauth/token  (polled; 403 until the user is done) -> {authorization_code, ...}
//   POST /oauth/token  (form: the code exchanged)  -> {id_token, access_token, refresh_token}
//
// Here the person's part is the visit: the verification page, once loaded, counts as signed in
// (it shows the code it expects, as the real page asks for it). Every request is recorded in
// `requests`, with the User-Agent of the page's visitor, so a test can tell which window opened it.
import http from "node:http";

export const USER_CODE = "PHT-4821";
const ACCESS_TOKEN_SUBJECT = "porthole-fake-chatgpt-user";
const ACCOUNT_ID = "porthole-fake-account";

/** An unsigned JWT with these claims (Codex reads the claims; it does not verify a signature). */
function jwt(claims) {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.sig`;
}

export function tokens() {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_plan_type: "plus", chatgpt_account_id: ACCOUNT_ID, chatgpt_user_id: ACCESS_TOKEN_SUBJECT };
  return {
    id_token: jwt({ email: "person@example.com", email_verified: true, exp, "https://api.openai.com/auth": auth }),
    access_token: jwt({ sub: ACCESS_TOKEN_SUBJECT, exp, "https://api.openai.com/auth": auth }),
    refresh_token: "porthole-fake-refresh-token",
  };
}

/** Starts the service; resolves { server, url, requests, visited() }. */
export function startFakeSignin() {
  const requests = [];
  let visitedBy = null;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const path = req.url.split("?")[0];
      requests.push({ method: req.method, path, userAgent: req.headers["user-agent"] ?? "", body: raw.slice(0, 300) });
      const json = (status, body) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST" && path === "/api/accounts/deviceauth/usercode") {
        // Codex reads `interval` as a string of seconds.
        return json(200, { device_auth_id: "porthole-device-auth", user_code: USER_CODE, interval: "1" });
      }
      if (req.method === "GET" && path === "/codex/device") {
        visitedBy = req.headers["user-agent"] ?? "";
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end(`<!doctype html><title>Device sign-in</title><h1>Enter the code ${USER_CODE}</h1><p>Signed in: you can close this window.</p>`);
      }
      if (req.method === "POST" && path === "/api/accounts/deviceauth/token") {
        if (!visitedBy) return json(403, { error: "authorization_pending" });
        return json(200, { authorization_code: "porthole-fake-code", code_challenge: "porthole-challenge", code_verifier: "porthole-verifier" });
      }
      if (req.method === "POST" && path === "/oauth/token") return json(200, tokens());
      // After signing in, Codex asks the ChatGPT backend (`chatgpt_base_url`) which workspace the
      // account routes to, and fails the sign-in without an answer.
      if (req.method === "GET" && path === "/backend-api/wham/accounts/check") {
        const account = { id: ACCOUNT_ID, name: "Porthole test", structure: "personal", plan_type: "plus", is_default: true, profile_picture_url: null };
        return json(200, { accounts: [account], account_ordering: [ACCOUNT_ID] });
      }
      json(404, { error: `fake sign-in: no ${req.method} ${path}` });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${server.address().port}`, requests, visited: () => visitedBy }),
    ),
  );
}
