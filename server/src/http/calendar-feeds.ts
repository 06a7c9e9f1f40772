import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { calendarFeed } from '../modules/schedules/calendar-feed';

/**
 * GET /api/calendars/:token: an on-call iCalendar feed. Calendar applications fetch it without
 * credentials, so the URL itself is the credential: its token is signed (calendar-feed.ts) and
 * names the organization and the schedule or person.
 */
export function registerCalendarFeeds(app: FastifyInstance, deps: Deps): void {
  app.get<{ Params: { token: string } }>('/api/calendars/:token', async (request, reply) => {
    const body = await calendarFeed(deps, request.params.token);
    if (!body) throw AppError.notFound();
    reply.code(200).headers({
      'content-type': 'text/calendar; charset=utf-8',
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    return reply.send(body);
  });
}
