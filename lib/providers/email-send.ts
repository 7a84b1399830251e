import { renderSignInMail } from '../pages/email'
import type { Messages } from '../pages/messages'
import { withDeadline } from '../util/promise-deadline'
import type { EmailProvider, VerificationRequest } from './types'

/**
 * Sends the sign-in mail (through the app's `sendVerificationRequest`, or the provider's transport
 * with the package's templates) within `sendTimeout`. Rejects when it failed or took too long.
 */
export async function sendSignInMail(
  provider: EmailProvider,
  request: VerificationRequest,
  messages?: Messages,
): Promise<void> {
  const { sendVerificationRequest, transport } = provider
  const send = async () => {
    if (sendVerificationRequest) return sendVerificationRequest(request)
    if (!transport) throw new Error('the e-mail provider has no transport')
    await transport.sendMail({
      from: provider.from,
      to: request.identifier,
      ...renderSignInMail(request.url, request.host, messages),
    })
  }
  await withDeadline(send(), provider.sendTimeout, 'sending the sign-in mail')
}
