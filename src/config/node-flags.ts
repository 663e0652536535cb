/**
 * The V8 flags the server runs with in production: `npm run start:prod`, the image's `CMD`, the systemd unit
 * (`deploy/systemd/bearer-list-api.service`) and the bench's rows of this project (a test holds every one of them to this list). V8 reads
 * them only from the command line (or `NODE_OPTIONS`), never once the process runs.
 *
 * `--max-semi-space-size=8`: the young generation grows to at most 8 MiB per semi-space instead of V8's 16. Under
 * the bench's load it had grown to its largest and held about 15 MiB of RSS (120 to 122 MiB against 105 to 106 with
 * the flag, issue 29); a request's garbage dies young either way, so scavenges run twice as often over the same few
 * survivors.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
