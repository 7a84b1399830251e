/**
 * The account stores hold the AccountStore contract (the suite `express-auth-service/testing`
 * ships): this process's memory.
 */
import { memoryAccounts } from '../../lib/features/accounts/memory-store'
import { describeAccountStoreContract } from '../../lib/testing'

describeAccountStoreContract('memoryAccounts()', () => memoryAccounts(), { describe, it, beforeEach })
