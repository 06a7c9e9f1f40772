import { teamsProcedures } from '@beckon/contracts/teams/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { linkStatus } from '../chat/link-codes';
import { connect, disconnect, teamsStatus } from './connection.service';
import { startLink } from './links.service';
import { deleteRoute, listConversations, listRoutes, putRoute } from './routes.service';
import { requireTeams } from './teams-config';

/** The permission that manages the organization's Teams bot. */
const manage = permissionProcedure('org.manage');

export const teamsRouter = router({
  status: implement(manage, teamsProcedures.status).query(({ ctx }) => teamsStatus(ctx.deps, ctx.identity)),
  connect: implement(manage, teamsProcedures.connect).mutation(({ ctx, input }) =>
    connect(ctx.deps, ctx.identity, input),
  ),
  disconnect: implement(manage, teamsProcedures.disconnect).mutation(({ ctx }) =>
    disconnect(ctx.deps, ctx.identity),
  ),
  conversations: implement(manage, teamsProcedures.conversations).query(({ ctx }) =>
    listConversations(ctx.deps, ctx.identity),
  ),
  routes: implement(manage, teamsProcedures.routes).query(({ ctx }) => listRoutes(ctx.deps, ctx.identity)),
  putRoute: implement(manage, teamsProcedures.putRoute).mutation(({ ctx, input }) =>
    putRoute(ctx.deps, ctx.identity, input),
  ),
  deleteRoute: implement(manage, teamsProcedures.deleteRoute).mutation(({ ctx, input }) =>
    deleteRoute(ctx.deps, ctx.identity, input.channel_id),
  ),
  link: implement(sessionProcedure, teamsProcedures.link).mutation(({ ctx }) =>
    startLink(ctx.deps, ctx.identity),
  ),
  linkStatus: implement(sessionProcedure, teamsProcedures.linkStatus).query(({ ctx }) => {
    requireTeams(ctx.deps);
    return linkStatus(ctx.deps, 'teams', ctx.identity);
  }),
});
