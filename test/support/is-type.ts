// Compile-time type equality for tests: `isType<A, B>(true)` compiles only when A and B are the same type.

/** True when A and B are the same type (not merely assignable one way). */
export type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Compiles only when A and B are the same type; `npm run typecheck` checks the call, the value is `equal`. */
export const isType = <A, B>(equal: Equal<A, B>): boolean => equal;
