/**
 * Tracing with OpenTelemetry's own packages, loaded only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the server
 * imports this module lazily): off, none of it is even loaded. A span per request (server kind, named and
 * attributed after the HTTP semantic conventions, continuing a W3C `traceparent` the caller sent) and one per
 * database call under it, exported in batches over OTLP/HTTP. A collector that is away costs a bounded queue
 * (spans past it are dropped) and a failed export now and then, never an error on a request.
 */
import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, type TextMapGetter, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { Context as HonoContext } from 'hono';
import type { KernelEnv, Wrapper } from '../http/kernel-env.js';
import { scrubKeys } from '../keys/api-key.js';
import type { Store } from '../store/store.js';
import type { BuildInfo } from './build-info.js';
import { type ExportFailureWarning, exportFailureReporter } from './export-failures.js';

export interface TracingOptions {
  /** The OTLP/HTTP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** `service.name` (`OTEL_SERVICE_NAME`, else `bearer-list-api`). */
  serviceName: string;
  /** The release: `service.version` and `service.instance.id` on every span, `app.commit` and `app.schema_version` beside them. */
  build?: BuildInfo;
  /** How long spans wait to be sent together; by default `OTEL_BSP_SCHEDULE_DELAY`, else OpenTelemetry's 5 s. */
  scheduledDelayMillis?: number;
  /** Told of failed exports: the first at once, then at most one a minute with the count (`export-failures.ts`). */
  onExportFailure?: (warning: ExportFailureWarning) => void;
}

/** What the server uses of the tracing: the request middleware, the store wrapper, and a flush at shutdown. */
export interface Tracing {
  /** The request's span (the kernel runs it after the request log: the line carries its `traceId`). */
  middleware: Wrapper;
  /** The storage engine with a client span around each call (under the request's span). */
  traceStore(engine: Store, system: 'postgresql' | 'sqlite'): Store;
  /** Sends what is queued and stops; resolves within `timeoutMs` whether or not the collector answered. */
  shutdown(timeoutMs?: number): Promise<void>;
}

const HEADERS: TextMapGetter<HonoContext> = {
  get: (c, key) => c.req.header(key),
  keys: (c) => Object.keys(c.req.header()),
};

/** Starts the tracer provider, registers W3C trace context and an AsyncLocalStorage context manager, and returns what the server wires in. */
export function startTracing(options: TracingOptions): Tracing {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const exporter = new OTLPTraceExporter({ url, timeoutMillis: 5_000 });
  // A failed export reaches OpenTelemetry's global error handler (by default a diagnostic logger nobody set: silence).
  if (options.onExportFailure) setGlobalErrorHandler(exportFailureReporter(options.onExportFailure));
  // The SDK reads OpenTelemetry's own variables for what is not set here: OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*.
  const provider = new BasicTracerProvider({
    // This server's own attributes, then OpenTelemetry's environment detection over them (OTEL_RESOURCE_ATTRIBUTES,
    // OTEL_SERVICE_NAME), as the specification orders them: what the operator sets wins over what the code knows.
    resource: resourceFromAttributes(ownResource(options)).merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [
      // The queue is bounded (`OTEL_BSP_MAX_QUEUE_SIZE`, 2,048 by default): past it, new spans are dropped.
      new BatchSpanProcessor(exporter, options.scheduledDelayMillis === undefined ? {} : { scheduledDelayMillis: options.scheduledDelayMillis }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('bearer-list-api');
  return {
    middleware: requestSpans(tracer),
    traceStore: (engine, system) => tracedStore(engine, tracer, system),
    async shutdown(timeoutMs = 3_000) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([provider.shutdown().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
  };
}

function ownResource(options: TracingOptions): Attributes {
  const { build } = options;
  return {
    [ATTR_SERVICE_NAME]: options.serviceName,
    ...(build && {
      [ATTR_SERVICE_VERSION]: build.version,
      'service.instance.id': build.instanceId,
      'app.commit': build.commit,
      'app.schema_version': build.schemaVersion,
    }),
  };
}

/**
 * A server span per request, the child of the caller's `traceparent` when it sent one: named `METHOD route`
 * once the operation is known (`METHOD` alone for a request that reached none, so names stay few), with the
 * HTTP semantic conventions' attributes; an answer of 500 or more marks it as an error.
 */
export function requestSpans(tracer: Tracer): Wrapper {
  return async (c: HonoContext<KernelEnv>, next) => {
    const parent = propagation.extract(context.active(), c, HEADERS);
    const method = c.req.method;
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          // Scrubbed as the request line's path is: a key a client put in its URL must not reach the collector.
          [ATTR_URL_PATH]: scrubKeys(c.req.path),
          [ATTR_URL_SCHEME]: new URL(c.req.url).protocol.slice(0, -1),
          [ATTR_CLIENT_ADDRESS]: c.get('client'),
        },
      },
      parent,
    );
    c.set('traceId', span.spanContext().traceId);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      finish(span, c);
    }
  };
}

function finish(span: Span, c: HonoContext<KernelEnv>): void {
  const status = c.res.status;
  const operation = c.get('operation');
  if (operation) {
    span.updateName(`${c.req.method} ${operation.path}`);
    span.setAttribute(ATTR_HTTP_ROUTE, operation.path);
    span.setAttribute('app.operation.id', operation.operationId);
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  const problem = c.get('problem');
  if (problem) span.setAttribute('app.problem.type', problem.type);
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The engine with a client span around each asynchronous call, named after the store's method (`findKeyByDigest`). */
export function tracedStore(engine: Store, tracer: Tracer, system: 'postgresql' | 'sqlite'): Store {
  const systemName = system === 'postgresql' ? DB_SYSTEM_NAME_VALUE_POSTGRESQL : 'sqlite';
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(engine, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      // The engines keep their state in private fields: every method runs on the engine itself, never on the proxy.
      if (property === 'close' || property === 'stats' || property === 'peekKeyByDigest') return value.bind(target);
      let traced = wrapped.get(property);
      if (!traced) {
        const name = String(property);
        const attributes: Attributes = { [ATTR_DB_SYSTEM_NAME]: systemName, [ATTR_DB_OPERATION_NAME]: name };
        traced = function (this: unknown, ...args: unknown[]) {
          const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
          let result: unknown;
          try {
            result = (value as (...values: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            failed(span, error);
            throw error;
          }
          if (!(result instanceof Promise)) {
            span.end();
            return result;
          }
          return result.then(
            (answer) => {
              span.end();
              return answer;
            },
            (error: unknown) => {
              failed(span, error);
              throw error;
            },
          );
        };
        wrapped.set(property, traced);
      }
      return traced;
    },
  });
}

function failed(span: Span, error: unknown): void {
  // The error's class only: a database's message may quote a value from the request.
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
