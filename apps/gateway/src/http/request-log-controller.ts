// Fastify logs every request twice at `info`: at 1 000 messages a second that is most of the log
// and a measurable share of the CPU (issue 20). A gateway's story is its turns; the per-request
// lines are for debugging, so they are written at `debug`. Failures keep Fastify's levels.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** Fastify's request logging with `incoming request` and `request completed` at `debug`. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
