/** A text as one shell word, in single quotes: nothing in it is expanded, by bash, zsh or any POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The show-once panel's "try it" command: lists the caller's items on the public API at `apiUrl`. It holds
 * no key. It asks for one (`read -rs`: typed or pasted, not echoed, in bash and zsh) and gives it to curl
 * as a header on curl's standard input (`-H @-`, from a here-string), so the key is neither in the command
 * the shell writes to its history nor in any process's arguments, which other accounts on the machine can
 * read in the process list. The variable is unset at the end. One line, so a paste cannot run part of it
 * while the rest waits in the terminal to be read as the key.
 */
export function curlCommand(apiUrl: string): string {
  return [
    `printf 'Paste your API key and press Enter: ' && read -rs API_KEY && echo &&`,
    `curl -s -X POST ${shellQuote(`${apiUrl}/`)} -H @- -H 'Content-Type: application/json' -d '{"sort":"asc"}'`,
    `<<<"Authorization: Bearer $API_KEY"; unset API_KEY`,
  ].join(' ');
}
