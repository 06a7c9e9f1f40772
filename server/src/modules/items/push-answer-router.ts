import { pushProcedures } from '@beckon/contracts/push/procedures';
import { implement } from '../../trpc/contract';
import { publicProcedure, router } from '../../trpc/init';
import { answerFromPush } from './operations/answer-from-push';

/**
 * `push.answer`, merged into the push router (app-router.ts): it answers items, so it lives with
 * them (the push module only sends). The token in the body is the credential: a person answering
 * from their lock screen.
 */
export const pushAnswerRouter = router({
  answer: implement(publicProcedure, pushProcedures.answer).mutation(({ ctx, input }) =>
    answerFromPush(ctx.deps, input),
  ),
});
