import type { IncomingHttpHeaders } from 'node:http';
import type { BodyOf, ParamsOf, QueryOf, ResponseOf } from '../../src/contract/operation.js';
import type { Operation, OperationId } from '../../src/contract/operations/index.js';
import type { Principal } from '../auth/principal.js';
import type { Services } from '../services/index.js';
import type { SseReply } from '../streams.js';
import type { CancelSignal } from '../cancellation.js';

export type OperationOf<Id extends OperationId> = Extract<Operation, { id: Id }>;

export interface RequestInfo {
  id: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, for operations that verify signatures over them. */
  rawBody: Buffer;
  /** Aborted when the client goes away. */
  signal: CancelSignal;
  /** Origin of this server as the client reached it, e.g. http://127.0.0.1:8787. */
  origin: string;
}

export interface HandlerContext<O> {
  params: ParamsOf<O>;
  query: QueryOf<O>;
  body: BodyOf<O>;
  principal: O extends { auth: readonly ['none'] } ? null : Principal;
  services: Services;
  request: RequestInfo;
}

/** A handler answers with the operation's response, or — for streaming operations — a stream. */
export type Handler<O> = (context: HandlerContext<O>) => Promise<ResponseOf<O> | SseReply>;

/** Operation id → handler. An operation without a handler answers 501. */
export type HandlerTable = { [Id in OperationId]?: Handler<OperationOf<Id>> };
