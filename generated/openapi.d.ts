/**
 * GENERATED FILE, DO NOT EDIT.
 * Made by `npm run generate` (openapi-typescript) from openapi/openapi.yaml.
 * Edit the spec and regenerate; `npm run check` fails while this file is stale.
 */

export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List your own items
         * @description Returns one page of the items owned by the user the API key belongs to,
         *     ordered by `createdAt` then `id` in the direction `sort` gives.
         *     To read the next page, send the same request with `cursor` set to the
         *     `nextCursor` of the previous answer.
         */
        post: operations["listOwnItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/shared": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List items shared with you (query string)
         * @description The body-less form of `POST /shared`, for clients and caches that prefer
         *     GET: the same options are taken from the query string and the answer is
         *     the same. A `Content-Type: application/json` header without a body, as in
         *     the source's example, is accepted and ignored. Unknown query parameters
         *     are rejected with `422`.
         */
        get: operations["listSharedItemsByQuery"];
        put?: never;
        /**
         * List items shared with you
         * @description Returns one page of the items other users have shared with the user the
         *     API key belongs to, ordered by `createdAt` then `id` in the direction
         *     `sort` gives. Paginate with `cursor` as for `POST /`.
         */
        post: operations["listSharedItems"];
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
        /**
         * @description Direction of the order. Items are ordered by `createdAt`, ties broken by
         *     `id`, both ascending (`asc`) or both descending (`desc`).
         * @default asc
         * @enum {string}
         */
        Sort: "asc" | "desc";
        /**
         * Format: int32
         * @description Largest number of items in one page.
         * @default 20
         */
        Limit: number;
        /**
         * @description Opaque position in a list, taken from `nextCursor` of the previous page.
         *     It is only valid for the same operation, caller and options that
         *     produced it: the same `sort` and the same filters (every option of the
         *     list but `cursor` and `limit`; `limit` may change from page to page).
         *     Any other cursor is rejected with `422`, one sent with other filters
         *     than its first page (or without them) included, so a page never
         *     continues a list it is not part of.
         */
        Cursor: string;
        /** @description Options of a list operation. Every field is optional; send `{}` for the first page in the default order. */
        ListRequest: {
            sort?: components["schemas"]["Sort"];
            limit?: components["schemas"]["Limit"];
            cursor?: components["schemas"]["Cursor"];
        };
        /** @description Identifier of an item. */
        ItemId: string;
        /** @description Identifier of a user account. */
        UserId: string;
        /**
         * @description One entry of a list. The source interface shows no resources, so this
         *     contract keeps the item neutral: an identifier, a title, its owner and
         *     when it was created.
         */
        Item: {
            id: components["schemas"]["ItemId"];
            /** @description Human-readable title of the item. */
            title: string;
            ownerId: components["schemas"]["UserId"];
            /**
             * Format: date-time
             * @description When the item was created (UTC, RFC 3339, millisecond precision).
             */
            createdAt: string;
        };
        /** @description One page of a list. */
        ItemPage: {
            /** @description The items of this page, in the requested order. At most `limit` of them. */
            items: components["schemas"]["Item"][];
            /** @description Cursor of the next page, or `null` when this page is the last. */
            nextCursor: components["schemas"]["Cursor"] | null;
        };
        /**
         * Format: int32
         * @description A number of requests, as the rate-limit headers count them (the server takes at most a billion per window).
         */
        RequestCount: number;
        /**
         * Format: int32
         * @description A number of seconds, as `Retry-After` and `RateLimit-Reset` give it (a window lasts a day at most).
         */
        Seconds: number;
        /**
         * @description Identifies the kind of problem. Clients branch on `type`, never on `title`
         *     or `detail`.
         * @enum {string}
         */
        ProblemType: "urn:problem-type:malformed-request" | "urn:problem-type:unauthorized" | "urn:problem-type:not-found" | "urn:problem-type:method-not-allowed" | "urn:problem-type:header-fields-too-large" | "urn:problem-type:request-timeout" | "urn:problem-type:content-too-large" | "urn:problem-type:unsupported-media-type" | "urn:problem-type:expectation-failed" | "urn:problem-type:validation-failed" | "urn:problem-type:rate-limited" | "urn:problem-type:internal-error" | "urn:problem-type:service-unavailable";
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
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The `Authorization` header is missing, is not a bearer token, or the key is malformed, unknown, revoked or expired (a rolled key past its overlap is expired). */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request body is larger than 8 KiB. Checked before the body is parsed, also for chunked bodies. */
        ContentTooLarge: {
            headers: {
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body is not sent as `application/json` (a `charset=utf-8` parameter is accepted). */
        UnsupportedMediaType: {
            headers: {
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The request is well-formed JSON but breaks the schema: a wrong type, a
         *     value out of range, an unknown field or query parameter, or a cursor that
         *     does not belong to this request. Each violation is listed in `errors` with
         *     a JSON pointer.
         */
        UnprocessableContent: {
            headers: {
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description This key has used up its requests for the current window; or this request carries no valid
         *     key and its client address has sent too many requests with missing or invalid credentials
         *     (`x-limits.failedAuthentication.perAddress` per window). A valid key is never refused for what
         *     other requests sent, from its address or any other. The `RateLimit-*` headers describe the
         *     budget that was used up.
         */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                /**
                 * @description Requests left for this key in the current window; 0 on this answer.
                 * @example 0
                 */
                "RateLimit-Remaining": components["schemas"]["RequestCount"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
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
         * @description The service cannot reach its database for the moment (a restart, a failover, a network cut).
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
         * @description Direction of the order; see `Sort`.
         * @example asc
         */
        SortQuery: components["schemas"]["Sort"];
        /**
         * @description Largest number of items in one page; see `Limit`.
         * @example 2
         */
        LimitQuery: components["schemas"]["Limit"];
        /**
         * @description The `nextCursor` of the previous page; see `Cursor`.
         * @example eyJvIjoiMjAyNi0wMS0wNlQwOTozMDowMC4wMDBaIn0.c2lnbmF0dXJl
         */
        CursorQuery: components["schemas"]["Cursor"];
    };
    requestBodies: never;
    headers: {
        /**
         * @description Requests allowed per key in each window.
         * @example 600
         */
        "RateLimit-Limit": components["schemas"]["RequestCount"];
        /**
         * @description Requests left for this key in the current window.
         * @example 599
         */
        "RateLimit-Remaining": components["schemas"]["RequestCount"];
        /**
         * @description Seconds until the current window ends and the quota is restored.
         * @example 42
         */
        "RateLimit-Reset": components["schemas"]["Seconds"];
        /**
         * @description Seconds to wait before sending another request with this key.
         * @example 42
         */
        "Retry-After": components["schemas"]["Seconds"];
        /**
         * @description The service's identifier of this request, sent on every answer (a problem repeats it as
         *     `requestId`). Quote it when reporting a problem; it is also the key to the service's log line.
         * @example 7f1c2e9a-4b6d-4e8f-9a0b-1c2d3e4f5a6b
         */
        "X-Request-Id": string;
        /**
         * @description The bearer challenge of RFC 6750 §3, for example `Bearer realm="api"` when
         *     no credentials were sent, or
         *     `Bearer realm="api", error="invalid_token", error_description="The API key expired at 2026-02-05T10:00:00.000Z."`
         *     when a token was presented and refused. `error_description` says why: the
         *     key is unknown, has been revoked, expired, or was rolled and its overlap ended.
         * @example Bearer realm="api"
         */
        "WWW-Authenticate": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listOwnItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description List options as a JSON object. All fields are optional; `{}` asks for the first page in ascending order. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ListRequest"];
            };
        };
        responses: {
            /** @description One page of the caller's own items. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ItemPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSharedItemsByQuery: {
        parameters: {
            query?: {
                /**
                 * @description Direction of the order; see `Sort`.
                 * @example asc
                 */
                sort?: components["parameters"]["SortQuery"];
                /**
                 * @description Largest number of items in one page; see `Limit`.
                 * @example 2
                 */
                limit?: components["parameters"]["LimitQuery"];
                /**
                 * @description The `nextCursor` of the previous page; see `Cursor`.
                 * @example eyJvIjoiMjAyNi0wMS0wNlQwOTozMDowMC4wMDBaIn0.c2lnbmF0dXJl
                 */
                cursor?: components["parameters"]["CursorQuery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the items shared with the caller. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ItemPage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSharedItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description List options as a JSON object. All fields are optional; `{}` asks for the first page in ascending order. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ListRequest"];
            };
        };
        responses: {
            /** @description One page of the items shared with the caller. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ItemPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["ContentTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
/** Each operation's method and path, by operationId (written by tools/generate/render-types.ts, not by openapi-typescript). */
export interface operationRoutes {
    listOwnItems: {
        method: "post";
        path: "/";
    };
    listSharedItemsByQuery: {
        method: "get";
        path: "/shared";
    };
    listSharedItems: {
        method: "post";
        path: "/shared";
    };
}
