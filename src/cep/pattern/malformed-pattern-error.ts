// The error a malformed CEP pattern raises when it is built or compiled (Flink's MalformedPatternException).
import { ConfigurationError } from '../../core/errors.ts';

/**
 * A pattern is invalid: a duplicate stage name, a quantifier on a negative stage, a pattern ending in
 * `notFollowedBy` without `within`, ... Raised while the pattern is built or when the job graph is built, never
 * per record. The messages are Flink's, so they can be looked up.
 *
 * @example
 * try { Pattern.begin<Ev>('a').notFollowedBy('b').oneOrMore(); } catch (e) { e instanceof MalformedPatternError; }
 */
export class MalformedPatternError extends ConfigurationError {}
