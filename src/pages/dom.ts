/** Small DOM helpers for the pages. Text goes in with `textContent` only, never as HTML. */

/** The element with this id, which the page's HTML must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** An element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** Shows a message in an alert region, or hides it when the message is empty. */
export function say(region: HTMLElement, message: string): void {
  region.textContent = message;
  region.hidden = message === '';
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A `<time>` for an RFC 3339 moment, readable in the reader's locale. */
export function time(iso: string): HTMLTimeElement {
  return el('time', { datetime: iso }, dateFormat.format(new Date(iso)));
}

/** Disables a form's submit button while `work` runs, so a double click sends one request. */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}
