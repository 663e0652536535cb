/**
 * GENERATED FILE, DO NOT EDIT.
 * Made by `npm run generate` (openapi-typescript) from openapi/account.yaml.
 * Edit the spec and regenerate; `npm run check` fails while this file is stale.
 */

export interface paths {
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign up
         * @description Creates a user with a name and a password and signs them in: the answer
         *     sets the session cookie and the device cookie. User names are unique.
         *     Sign-ups are limited per client address (`x-limits.signUp`): one that
         *     makes an account and one that meets a taken name both count, so the
         *     `409` is no free way to learn which names exist.
         */
        post: operations["signUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who is signed in
         * @description The signed-in user and when the session expires. `401` when no valid session cookie was sent.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in
         * @description Checks a user name and password and starts a new session, replacing any
         *     session cookie the browser had. A wrong name and a wrong password get
         *     the same `401`.
         */
        post: operations["signIn"];
        /**
         * Sign out
         * @description Ends the session on the server (its cookie stops working everywhere at once) and clears the cookie.
         */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change your password
         * @description Replaces the signed-in user's password. The current password is asked
         *     for and checked as a sign-in checks it: each try is counted before the
         *     password is checked, with the sign-in attempts (`x-limits.signIn`: this
         *     browser's own count when it carries the account's device cookie, else
         *     the account's and the client address's), so a wrong one is no free
         *     guess. The new password must keep the password rule of sign-up
         *     (`SignUpRequest.password`, `x-limits.password`), else `422` names the
         *     rule it breaks; that is checked first and costs no attempt. On success
         *     every other session of the user ends at once (their cookies get `401`),
         *     on every instance, with any sign-in that checked the old password and
         *     had not made its session yet; this one stays. Every device cookie made
         *     before it stops counting as the account's browser; this browser gets a
         *     new one with the answer. The user's API keys go on working, unless `revokeKeys` is
         *     true: then every active key of the user is revoked with it (each with a
         *     `revoked` event from `web`), in the same transaction.
         */
        put: operations["changePassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your active sessions
         * @description The signed-in user's live sessions (every browser signed in to the
         *     account that has neither signed out nor expired), this one first, then
         *     newest first; `current` marks this one. Never a session's token or its
         *     digest.
         */
        get: operations["listSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End one of your sessions
         * @description Ends one of your sessions at once: its cookie gets `401` from its next
         *     request on. Ending this very session signs you out (the answer clears
         *     the cookie). Another user's session id answers `404`, exactly as an
         *     unknown one.
         */
        delete: operations["endSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your API keys
         * @description The signed-in user's keys, each with its hint, never its secret. Every
         *     active key comes first (newest first), then the revoked and expired
         *     ones (newest first), so no number of old keys can push an active one
         *     off the list. Page with `cursor`: the first page holds every active key
         *     unless there are more than `limit` of them (the web application makes
         *     at most `x-limits.keys.activePerUser`; a rolled key in its overlap and
         *     keys an operator made can add more), and the following pages continue
         *     in the same order. A revoked or expired key you no longer want to see
         *     can be removed from the list (`DELETE /keys/{keyId}`).
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Generate an API key
         * @description Makes a key for the public API with a name and an expiry. The answer is
         *     the only time the key's secret is shown; it is sent with
         *     `Cache-Control: no-store`. Store it safely and send it as
         *     `Authorization: Bearer <key>`.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a revoked or expired key from your list
         * @description Takes a key that no longer works (revoked, or expired) off your key
         *     list. Its events stay in the key activity (`GET /key-events`), and the
         *     public API goes on refusing it as before. After that the key is gone for
         *     you: every operation on its id answers `404`, this one included. An
         *     active key, a rolled one still in its overlap among them, is refused
         *     with `409`: revoke it first.
         */
        delete: operations["removeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{keyId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an API key
         * @description Revokes one of your keys: the public API refuses it from its next
         *     request on. Revoking a revoked key changes nothing and answers the same.
         *     A rolled key still in its overlap can be revoked to end the overlap now.
         */
        post: operations["revokeKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{keyId}/roll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Roll an API key
         * @description Replaces a key with a new one of the same name. The old key keeps working
         *     for the overlap you choose (`overlapHours`, 0 for none) so clients can
         *     switch, then stops (it expires; a request with it gets `401`). The new
         *     key's secret is shown this once, with `Cache-Control: no-store`. Only an
         *     active key that has not been rolled already can be rolled.
         */
        post: operations["rollKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/key-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your key events
         * @description The audit trail of your keys, newest first: each key's creation, roll,
         *     revocation, expiry and first use, with when it happened and how
         *     (`web`, `cli`, `api` or `system`). Page with `cursor`.
         */
        get: operations["listKeyEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A user name; lower-case letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
        UserName: string;
        /** @description Identifier of a user account. */
        UserId: string;
        /** @description Identifier of an API key (not the key itself). */
        KeyId: string;
        /**
         * Format: date-time
         * @description A moment in UTC, RFC 3339 with milliseconds.
         */
        Timestamp: string;
        /** @description A new user's name and password. */
        SignUpRequest: {
            name: components["schemas"]["UserName"];
            /**
             * @description 15 to 256 characters, compared and stored in Unicode normalization form NFKC (so full-width letters,
             *     ligatures or a decomposed accent make the same password as their plain form). It must not be easy to
             *     guess (NIST SP 800-63B): zxcvbn-ts, offline, estimates the guesses its first 64 characters take against
             *     lists of common and breached passwords, common words and names, keyboard patterns, repeats, sequences
             *     and dates, and the user name and the service's name; fewer than 10^8 guesses
             *     (`x-limits.password.minGuessesLog10`) is refused with `422`, whose violation names the rule it breaks
             *     ("repeats a character or a group of characters", "is built on your user name or the service's name",
             *     "is on a list of common and breached passwords", ...). No rule on which kinds of characters it holds.
             *     For example, `passwordpassword` is refused ("repeats a character or a group of characters"), and
             *     `granite tulip seventy otter`, four unrelated words, is accepted. Never logged or returned.
             */
            password: string;
        };
        /** @description A user name and password. */
        SignInRequest: {
            /** @description The user name given at sign-up. Any text but U+0000 (PostgreSQL cannot store it); a name no user has gets the same `401` as a wrong password. */
            name: string;
            /**
             * @description The user's password, compared in Unicode normalization form NFKC (and, for a password set before
             *     passwords were normalized, as typed, after which it is stored normalized).
             */
            password: string;
        };
        /** @description A user account. */
        User: {
            id: components["schemas"]["UserId"];
            name: components["schemas"]["UserName"];
            createdAt: components["schemas"]["Timestamp"];
        };
        /** @description The signed-in user and when the session ends. */
        SessionInfo: {
            user: components["schemas"]["User"];
            expiresAt: components["schemas"]["Timestamp"];
            idleExpiresAt: components["schemas"]["Timestamp"];
        };
        /** @description Identifier of a session (not its token). */
        SessionId: string;
        /** @description The current password, and the new one. */
        ChangePasswordRequest: {
            /** @description The password the user signs in with now, compared as at sign-in (`SignInRequest.password`). */
            currentPassword: string;
            /**
             * @description The new password, under the rule of sign-up (`SignUpRequest.password`): 15 to 256 characters, stored
             *     in Unicode form NFKC, not easy to guess (`x-limits.password`), and not the current password.
             */
            newPassword: string;
            revokeKeys?: components["schemas"]["RevokeKeys"];
        };
        /**
         * @description Also revoke every active API key of the user, in the same transaction (for a password that may have leaked
         *     with keys made under it). By default keys go on working: a password change ends sessions and device
         *     cookies only.
         * @default false
         */
        RevokeKeys: boolean;
        /** @description One live session of the user, as its owner sees it. Never its token or digest. */
        ActiveSession: {
            id: components["schemas"]["SessionId"];
            /** @description When it started (the sign-up or sign-in). */
            createdAt: components["schemas"]["Timestamp"];
            /** @description Its latest request, to the minute. */
            lastSeenAt: components["schemas"]["Timestamp"];
            /** @description Its absolute expiry. */
            expiresAt: components["schemas"]["Timestamp"];
            /** @description When it ends unless it is used before. */
            idleExpiresAt: components["schemas"]["Timestamp"];
            /** @description Whether this is the session of the request that asked. */
            current: boolean;
        };
        /** @description A user's live sessions. */
        SessionList: {
            /** @description This session first, then the others newest first (at most 100; the oldest drop off the end). */
            sessions: components["schemas"]["ActiveSession"][];
        };
        /**
         * @description What the key is for, so its owner can tell keys apart. Not blank, and no control character (U+0000 to
         *     U+001F, U+007F to U+009F: a tab, a line break, an escape sequence that would rewrite a terminal's screen;
         *     PostgreSQL cannot store U+0000 at all). Spaces may lead: they are Unicode spaces, never a control character.
         */
        KeyName: string;
        /**
         * Format: int32
         * @description Days until the key expires. An expired key gets `401` from the public API, like a revoked one.
         * @default 30
         * @enum {integer}
         */
        ExpiresInDays: 7 | 30 | 60 | 90 | 365;
        /**
         * Format: int32
         * @description Hours the old key keeps working after a roll; 0 stops it at once.
         * @default 24
         * @enum {integer}
         */
        OverlapHours: 0 | 1 | 24 | 72 | 168;
        /** @description The new key's name and expiry. */
        CreateKeyRequest: {
            name: components["schemas"]["KeyName"];
            expiresInDays?: components["schemas"]["ExpiresInDays"];
        };
        /** @description How long the old key keeps working, and the new key's expiry. Send `{}` for the defaults. */
        RollKeyRequest: {
            overlapHours?: components["schemas"]["OverlapHours"];
            expiresInDays?: components["schemas"]["ExpiresInDays"];
        };
        /**
         * @description `active`: the public API accepts it (a rolled key is active until its
         *     overlap ends). `expired`: its `expiresAt` has passed. `revoked`: its
         *     owner or an operator revoked it.
         * @enum {string}
         */
        KeyStatus: "active" | "expired" | "revoked";
        /** @description An API key as its owner sees it. Never the secret itself. */
        ApiKey: {
            id: components["schemas"]["KeyId"];
            name: components["schemas"]["KeyName"];
            /** @description The prefix and the last four characters, e.g. `tka_…abcd`. */
            hint: string;
            status: components["schemas"]["KeyStatus"];
            createdAt: components["schemas"]["Timestamp"];
            /** @description When the public API last accepted it, to the minute; `null` if never. */
            lastUsedAt: components["schemas"]["Timestamp"] | null;
            /** @description When it stops working; `null` only for keys made before keys expired (they work until revoked). */
            expiresAt: components["schemas"]["Timestamp"] | null;
            /** @description When it was revoked; `null` if it was not. */
            revokedAt: components["schemas"]["Timestamp"] | null;
            /** @description When it was rolled (replaced by `replacedBy`); `null` if it was not. */
            rolledAt: components["schemas"]["Timestamp"] | null;
            /** @description The key that replaced it when it was rolled; `null` if it was not. */
            replacedBy: components["schemas"]["KeyId"] | null;
        };
        /**
         * @description The key itself: `tka_` + 32 base62 characters + a 6-character checksum.
         *     Shown once, never stored in clear, never shown again.
         */
        ApiKeySecret: string;
        /** @description A new key and its secret, shown this once. */
        CreatedKey: {
            key: components["schemas"]["ApiKey"];
            secret: components["schemas"]["ApiKeySecret"];
        };
        /** @description The replacement key and its secret (shown this once), and the old key with its new expiry. */
        RolledKey: {
            key: components["schemas"]["ApiKey"];
            secret: components["schemas"]["ApiKeySecret"];
            previous: components["schemas"]["ApiKey"];
        };
        /** @description One page of a user's keys; every active key before any revoked or expired one, each group newest first. */
        KeyList: {
            /** @description The keys of this page (at most `limit`). */
            keys: components["schemas"]["ApiKey"][];
            /** @description Cursor of the next page, or `null` when this page is the last. */
            nextCursor: components["schemas"]["KeyCursor"] | null;
        };
        /**
         * @description What happened to the key.
         * @enum {string}
         */
        KeyEventType: "created" | "rolled" | "revoked" | "expired" | "first_used";
        /** @description One entry of the audit trail. */
        KeyEvent: {
            /** @description Identifier of the event. */
            id: string;
            type: components["schemas"]["KeyEventType"];
            at: components["schemas"]["Timestamp"];
            /**
             * @description How it happened: `web` (these pages), `cli` (the operator's
             *     `npm run keys`), `api` (a request to the public API) or `system`
             *     (time passed).
             * @enum {string}
             */
            source: "web" | "cli" | "api" | "system";
            keyId: components["schemas"]["KeyId"];
            keyName: components["schemas"]["KeyName"];
            /** @description The key's hint, as `ApiKey.hint`. */
            keyHint: string;
        };
        /**
         * @description Opaque position in the event list, taken from `nextCursor`. It is only
         *     valid with the same query options as the page that gave it (every
         *     parameter but `cursor` and `limit`; `limit` may change from page to
         *     page): any other cursor, one sent with other filters included, is
         *     refused with `422`.
         */
        EventCursor: string;
        /**
         * @description Opaque position in the key list, taken from `nextCursor`. It is only
         *     valid with the same query options as the page that gave it (every
         *     parameter but `cursor` and `limit`; `limit` may change from page to
         *     page): any other cursor, one sent with other filters included, is
         *     refused with `422`.
         */
        KeyCursor: string;
        /** @description One page of key events, newest first. */
        KeyEventPage: {
            /** @description The events of this page. */
            events: components["schemas"]["KeyEvent"][];
            /** @description Cursor of the next (older) page, or `null` when this page is the last. */
            nextCursor: components["schemas"]["EventCursor"] | null;
        };
        /**
         * Format: int32
         * @description A number of seconds, as `Retry-After` gives it (a day at most).
         */
        Seconds: number;
        /**
         * @description Identifies the kind of problem. Clients branch on `type`, never on `title`
         *     or `detail`. The public API's types, plus `forbidden`, `conflict` and
         *     `too-many-sign-in-attempts`.
         * @enum {string}
         */
        ProblemType: "urn:problem-type:malformed-request" | "urn:problem-type:unauthorized" | "urn:problem-type:forbidden" | "urn:problem-type:not-found" | "urn:problem-type:method-not-allowed" | "urn:problem-type:conflict" | "urn:problem-type:header-fields-too-large" | "urn:problem-type:request-timeout" | "urn:problem-type:content-too-large" | "urn:problem-type:unsupported-media-type" | "urn:problem-type:expectation-failed" | "urn:problem-type:validation-failed" | "urn:problem-type:rate-limited" | "urn:problem-type:too-many-sign-in-attempts" | "urn:problem-type:internal-error" | "urn:problem-type:service-unavailable";
        /** @description One way in which the request broke the contract. */
        Violation: {
            /**
             * @description The part of the request the pointer refers to: the JSON body, the
             *     query string, the path parameters or the request headers.
             * @enum {string}
             */
            in: "body" | "query" | "path" | "header";
            /**
             * @description JSON pointer (RFC 6901) to the offending value inside that part, each
             *     part read as an object: `/sort` in the body, `/limit` in the query
             *     string, `/id` among the path parameters, `/x-example` among the headers
             *     (header names in lower case). An empty string points at the whole body.
             */
            pointer: string;
            /** @description What is wrong with the value. */
            detail: string;
        };
        /**
         * @description Problem Details for HTTP APIs (RFC 9457). Every error answer of this
         *     service has this shape and the media type `application/problem+json`.
         */
        Problem: {
            type: components["schemas"]["ProblemType"];
            /** @description Short summary of the problem type; the same for every occurrence. */
            title: string;
            /**
             * Format: int32
             * @description The HTTP status code of this answer.
             */
            status: number;
            /** @description Explanation specific to this occurrence. */
            detail: string;
            /** @description The path of the request that failed. */
            instance?: string;
            /** @description Identifier of the request, also sent as `X-Request-Id`; quote it when reporting a problem. */
            requestId?: string;
            /** @description On `422`, one entry per violation. */
            errors?: components["schemas"]["Violation"][];
        };
    };
    responses: {
        /** @description The body is not valid JSON, is empty, or is JSON but not an object. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description This operation takes no request body, and the request announced one (a `Content-Length` other than 0, or a
         *     `Transfer-Encoding`). Send it without one: a body is never ignored, as a `GET` or `HEAD` with one is refused
         *     before any operation.
         */
        UnexpectedBody: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No session cookie was sent, or its session has ended (signed out, idle or past its absolute expiry). */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description An unsafe request that did not come from the web application's own pages (its `Origin` or `Sec-Fetch-Site` says so). */
        CrossSiteRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description You have no key with this id (another user's key is answered the same way). */
        KeyNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request body is larger than 4 KiB. */
        ContentTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body is not sent as `application/json`. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The request breaks the schema, or a value the schema allows is not one
         *     the operation can take (a cursor that is not a `nextCursor`); each
         *     violation is listed in `errors` with a JSON pointer. A value the database
         *     refuses to store is answered the same way, without `errors`.
         */
        UnprocessableContent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description This session, or this client address when the request carries no live
         *     session, has sent more requests than `x-limits.rateLimit` allows; or the
         *     request carries no live session and its address has sent more requests
         *     without one than `x-limits.failedAuthentication` allows. A live session is
         *     never refused for what other requests sent.
         */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description An unexpected failure on the server. The details are logged, never sent. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The service cannot answer for the moment: it cannot reach its database (a restart, a failover, a
         *     network cut), or, for a sign-up or a sign-in, too many passwords are being checked at once.
         *     Nothing was changed. Send the same request again after `Retry-After` seconds.
         */
        ServiceUnavailable: {
            headers: {
                /**
                 * @description Seconds to wait before trying again.
                 * @example 2
                 */
                "Retry-After": components["schemas"]["Seconds"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: {
        /**
         * @description The key's id, as `listKeys` shows it.
         * @example key_7h3k9m2p4r6t8v0x
         */
        KeyIdPath: components["schemas"]["KeyId"];
        /**
         * @description The session's id, as `listSessions` shows it.
         * @example ses_3j8k2m5n7p9q1r4t
         */
        SessionIdPath: components["schemas"]["SessionId"];
        /**
         * @description Largest number of events in one page.
         * @example 20
         */
        EventLimitQuery: number;
        /**
         * @description The `nextCursor` of the previous page; anything else is refused with `422`.
         * @example MjAyNi0wMS0wNVQwODoxNTowMC4wMDBafGV2dF8wYTFiMmMzZDRlNWY2ZzdoCg
         */
        EventCursorQuery: components["schemas"]["EventCursor"];
        /**
         * @description Largest number of keys in one page.
         * @example 20
         */
        KeyLimitQuery: number;
        /**
         * @description The `nextCursor` of the previous page; anything else is refused with `422`.
         * @example MjAyNi0wMS0wNlQxMDowMDowMC4wMDBafDF8MjAyNi0wMS0wNVQwODoyMDowMC4wMDBafGtleV83aDNrOW0ycDRyNnQ4djB4
         */
        KeyCursorQuery: components["schemas"]["KeyCursor"];
    };
    requestBodies: never;
    headers: {
        /**
         * @description The session cookie: `__Host-session=<token>; Path=/; Max-Age=28800; HttpOnly; Secure; SameSite=Strict`
         *     over HTTPS, `session=<token>; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict` over plain HTTP in local development.
         *     A second `Set-Cookie` header follows with the device cookie,
         *     `__Host-device=<user id>.<nonce>.<signature>; Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=Strict`
         *     (`device=...` without `Secure` over plain HTTP). The pattern takes the session cookie alone, or both as
         *     a client that folds the two headers into one shows them: joined by `, ` (the Fetch API's `Headers.get`) or by
         *     `,` (Stoplight Prism and some proxies).
         * @example __Host-session=Qm9vdHN0cmFwcGluZy1hLXNlc3Npb24tdG9rZW4tMDA; Path=/; Max-Age=28800; HttpOnly; Secure; SameSite=Strict
         */
        SetSessionCookie: string;
        /**
         * @description The device cookie alone (a password change: the session goes on, the browser's device cookie is made anew
         *     under the new password): `__Host-device=<user id>.<nonce>.<signature>; Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=Strict`
         *     over HTTPS, `device=...` without `Secure` over plain HTTP.
         * @example __Host-device=usr_0a1b2c3d4e5f6g7h.bm9uY2Utb2YtMjItY2hhcn.c2lnbmF0dXJlLW9mLTQzLWNoYXJhY3RlcnMtaW4tYmF; Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=Strict
         */
        SetDeviceCookie: string;
        /**
         * @description Clears the session cookie in the browser.
         * @example __Host-session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict
         */
        ClearSessionCookie: string;
        /**
         * @description The answer holds a secret; it must not be stored by any cache.
         * @example no-store
         */
        NoStore: "no-store";
        /**
         * @description Seconds to wait before trying again.
         * @example 42
         */
        "Retry-After": components["schemas"]["Seconds"];
        /**
         * @description The `Cookie` challenge (draft-broyer-http-cookie-auth): where to sign in
         *     and which cookie carries the session.
         * @example Cookie realm="account", form-action="/sign-in", cookie-name="__Host-session"
         */
        "WWW-Authenticate": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    signUp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignUpRequest"];
            };
        };
        responses: {
            /** @description The user was created and is signed in. */
            201: {
                headers: {
                    "Set-Cookie": components["headers"]["SetSessionCookie"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionInfo"];
                };
            };
            400: components["responses"]["BadRequest"];
            403: components["responses"]["CrossSiteRequest"];
            /** @description The user name is taken. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /**
             * @description The request breaks the schema, or the password breaks the password rule (see `SignUpRequest`); each
             *     violation is listed in `errors` with a JSON pointer, and a password's names the rule it breaks.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description This client address has signed up, or tried a taken name, as often as `x-limits.signUp` allows (the
             *     `detail` says how many minutes to wait), or has sent too many requests.
             */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionInfo"];
                };
            };
            401: components["responses"]["Unauthorized"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignInRequest"];
            };
        };
        responses: {
            /** @description Signed in. */
            200: {
                headers: {
                    "Set-Cookie": components["headers"]["SetSessionCookie"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionInfo"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The user name or the password is wrong (the answer does not say which). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["CrossSiteRequest"];
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            /**
             * @description Too many failed sign-ins from this browser (when it carries the account's device cookie), or for this
             *     account from browsers it does not know, or from this client; or too many successful sign-ins to this
             *     account or from this client in a short time (`x-limits.signIn.successesPerAccount`, a rate); or too many
             *     requests from this client. The `detail` says how long to wait, `Retry-After` in seconds.
             */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            204: {
                headers: {
                    "Set-Cookie": components["headers"]["ClearSessionCookie"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["UnexpectedBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangePasswordRequest"];
            };
        };
        responses: {
            /**
             * @description The password is changed; every other session of the user has ended, and with `revokeKeys` every active key
             *     is revoked. This browser gets a new device cookie, made under the new password (every earlier one, this
             *     browser's too, no longer counts as the account's).
             */
            204: {
                headers: {
                    "Set-Cookie": components["headers"]["SetDeviceCookie"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /**
             * @description The current password is wrong (counted as a failed sign-in), or no session cookie was sent, or its
             *     session has ended. A client tells the two apart with `GET /session`.
             */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["CrossSiteRequest"];
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /**
             * @description The request breaks the schema, or the new password breaks the password rule (see `SignUpRequest`) or
             *     is the current one; each violation is listed in `errors` with a JSON pointer, and a password's names
             *     the rule it breaks.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description Too many wrong passwords or failed sign-ins from this browser (when it carries the account's device
             *     cookie), or for this account from browsers it does not know, or from this client; or too many
             *     requests. The `detail` says how many minutes to wait.
             */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user's live sessions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    endSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The session's id, as `listSessions` shows it.
                 * @example ses_3j8k2m5n7p9q1r4t
                 */
                sessionId: components["parameters"]["SessionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session has ended. */
            204: {
                headers: {
                    /**
                     * @description Sent only when the session ended is this one; clears the session cookie in the browser.
                     * @example __Host-session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict
                     */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["UnexpectedBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            /** @description You have no session with this id (another user's session is answered the same way). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listKeys: {
        parameters: {
            query?: {
                /**
                 * @description Largest number of keys in one page.
                 * @example 20
                 */
                limit?: components["parameters"]["KeyLimitQuery"];
                /**
                 * @description The `nextCursor` of the previous page; anything else is refused with `422`.
                 * @example MjAyNi0wMS0wNlQxMDowMDowMC4wMDBafDF8MjAyNi0wMS0wNVQwODoyMDowMC4wMDBafGtleV83aDNrOW0ycDRyNnQ4djB4
                 */
                cursor?: components["parameters"]["KeyCursorQuery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the user's keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKeyRequest"];
            };
        };
        responses: {
            /** @description The key, with its secret shown this once. */
            201: {
                headers: {
                    "Cache-Control": components["headers"]["NoStore"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            /** @description The user already has as many active keys as `x-limits.keys.activePerUser` allows. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    removeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key's id, as `listKeys` shows it.
                 * @example key_7h3k9m2p4r6t8v0x
                 */
                keyId: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key is no longer listed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["UnexpectedBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            404: components["responses"]["KeyNotFound"];
            /** @description The key is active; revoke it first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key's id, as `listKeys` shows it.
                 * @example key_7h3k9m2p4r6t8v0x
                 */
                keyId: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key, revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            400: components["responses"]["UnexpectedBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            404: components["responses"]["KeyNotFound"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rollKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The key's id, as `listKeys` shows it.
                 * @example key_7h3k9m2p4r6t8v0x
                 */
                keyId: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RollKeyRequest"];
            };
        };
        responses: {
            /** @description The new key, with its secret shown this once, and the old key with its new end. */
            201: {
                headers: {
                    "Cache-Control": components["headers"]["NoStore"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolledKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["CrossSiteRequest"];
            404: components["responses"]["KeyNotFound"];
            /** @description The key is revoked, expired, or was rolled already; roll its replacement instead. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listKeyEvents: {
        parameters: {
            query?: {
                /**
                 * @description Largest number of events in one page.
                 * @example 20
                 */
                limit?: components["parameters"]["EventLimitQuery"];
                /**
                 * @description The `nextCursor` of the previous page; anything else is refused with `422`.
                 * @example MjAyNi0wMS0wNVQwODoxNTowMC4wMDBafGV2dF8wYTFiMmMzZDRlNWY2ZzdoCg
                 */
                cursor?: components["parameters"]["EventCursorQuery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyEventPage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
/** Each operation's method and path, by operationId (written by tools/generate/render-types.ts, not by openapi-typescript). */
export interface operationRoutes {
    signUp: {
        method: "post";
        path: "/users";
    };
    getSession: {
        method: "get";
        path: "/session";
    };
    signIn: {
        method: "post";
        path: "/session";
    };
    signOut: {
        method: "delete";
        path: "/session";
    };
    changePassword: {
        method: "put";
        path: "/password";
    };
    listSessions: {
        method: "get";
        path: "/sessions";
    };
    endSession: {
        method: "delete";
        path: "/sessions/{sessionId}";
    };
    listKeys: {
        method: "get";
        path: "/keys";
    };
    createKey: {
        method: "post";
        path: "/keys";
    };
    removeKey: {
        method: "delete";
        path: "/keys/{keyId}";
    };
    revokeKey: {
        method: "post";
        path: "/keys/{keyId}/revoke";
    };
    rollKey: {
        method: "post";
        path: "/keys/{keyId}/roll";
    };
    listKeyEvents: {
        method: "get";
        path: "/key-events";
    };
}
