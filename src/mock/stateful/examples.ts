/**
 * The examples a spec gives for an operation's answer: its named `examples`, a media `example`, and the
 * schema's own `example`. The stateful mock seeds its collections from them and takes the shape of what it
 * makes (a new key's hint, a session's expiry) from them.
 */
import type { OperationContract } from '../../contract/operations.js';
import { deref, isObject, type Json, type OpenApiDocument } from '../../contract/spec.js';
import { resolveSchema } from '../../contract-suite/values/schema-refs.js';

/** The lowest documented 2xx of an operation (`2XX` counts as 200), if any. */
export function successStatus(operation: OperationContract): number | undefined {
  return Object.keys(operation.responses)
    .map((status) => (status === '2XX' ? 200 : Number(status)))
    .filter((status) => status >= 200 && status < 300)
    .sort((a, b) => a - b)[0];
}

/** The JSON schema of an operation's answer with this status, if it has one. */
export function answerSchema(operation: OperationContract, status: number | undefined): Json | undefined {
  const response = status === undefined ? undefined : (operation.responses[String(status)] ?? operation.responses['2XX']);
  const media = Object.entries(response?.content ?? {}).find(([type]) => /json/i.test(type))?.[1];
  return media?.schema;
}

/** Every example of an operation's answer with this status, named ones first. */
export function answerExamples(spec: OpenApiDocument, operation: OperationContract, status: number | undefined): Json[] {
  if (status === undefined) return [];
  const response = operation.responses[String(status)];
  const [mediaType, media] = Object.entries(response?.content ?? {}).find(([type]) => /json/i.test(type)) ?? [];
  if (!media || mediaType === undefined) return [];
  const raw = rawMedia(spec, operation, String(status), mediaType);
  const single = raw?.['example'];
  const schemaExample = resolveSchema(spec, media.schema)['example'];
  return [...Object.values(media.examples), single, schemaExample].filter((example): example is Json => example !== undefined);
}

/** The examples of an operation's JSON request body. */
export function requestExamples(spec: OpenApiDocument, operation: OperationContract): Json[] {
  const media = Object.entries(operation.requestBody?.content ?? {}).find(([type]) => /json/i.test(type))?.[1];
  if (!media) return [];
  return [...Object.values(media.examples), resolveSchema(spec, media.schema)['example']].filter((example): example is Json => example !== undefined);
}

function rawMedia(spec: OpenApiDocument, operation: OperationContract, status: string, mediaType: string) {
  const item = deref(spec, spec.paths[operation.path]);
  const responses = deref(spec, deref(spec, item[operation.method.toLowerCase()])['responses']);
  const content = deref(spec, responses[status])['content'];
  return isObject(content) && isObject(content[mediaType]) ? deref(spec, content[mediaType]) : undefined;
}
