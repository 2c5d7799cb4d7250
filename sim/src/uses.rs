//! Where each expression of a function is used: as an operand, a stored value or pointer, a
//! call's argument, or by a statement. The simulator copies only the argument words a callee
//! reads ([`crate::regs`]); the checkers ask which reads a value reaches
//! ([`crate::checks::ir`]). A leaf over naga's IR: it imports nothing of the crate.

use naga::{Expression, Function, Handle, Statement};

/// One use of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum User {
    /// An operand of another expression.
    Expr(Handle<Expression>),
    /// The pointer of a `Store` of `value`.
    StorePointer {
        /// The stored value.
        value: Handle<Expression>,
    },
    /// The value of a `Store` through `pointer`.
    Stored {
        /// The pointer stored through.
        pointer: Handle<Expression>,
    },
    /// Argument `index` of a call of function table `function`.
    Argument {
        /// The callee's function table.
        function: usize,
        /// The argument.
        index: usize,
    },
    /// Any other operand of a statement (a condition, a returned value, an atomic's pointer,
    /// a subgroup operation's argument …).
    Statement,
}

/// The uses of every expression of one function.
pub struct Uses {
    users: Vec<Vec<User>>,
}

impl Uses {
    /// The uses in `f`.
    pub fn of(f: &Function) -> Uses {
        let mut users = vec![Vec::new(); f.expressions.len()];
        for (h, e) in f.expressions.iter() {
            operands(e, |o| users[o.index()].push(User::Expr(h)));
        }
        block_uses(&f.body, &mut |o, u| users[o.index()].push(u));
        Uses { users }
    }

    /// The uses of `h`.
    pub fn users(&self, h: Handle<Expression>) -> &[User] {
        &self.users[h.index()]
    }
}

/// Calls `f` with every operand of `e`.
pub fn operands(e: &Expression, mut f: impl FnMut(Handle<Expression>)) {
    use Expression as E;
    match *e {
        E::Access { base, index } => {
            f(base);
            f(index);
        }
        E::AccessIndex { base, .. } => f(base),
        E::Splat { value, .. } => f(value),
        E::Swizzle { vector, .. } => f(vector),
        E::Compose { ref components, .. } => components.iter().copied().for_each(f),
        E::Load { pointer } => f(pointer),
        E::Unary { expr, .. } | E::As { expr, .. } | E::Derivative { expr, .. } => f(expr),
        E::Binary { left, right, .. } => {
            f(left);
            f(right);
        }
        E::Select {
            condition,
            accept,
            reject,
        } => {
            f(condition);
            f(accept);
            f(reject);
        }
        E::Relational { argument, .. } => f(argument),
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => {
            f(arg);
            [arg1, arg2, arg3].into_iter().flatten().for_each(f);
        }
        E::ArrayLength(p) => f(p),
        E::CooperativeLoad { ref data, .. } => {
            f(data.pointer);
            f(data.stride);
        }
        E::CooperativeMultiplyAdd { a, b, c } => {
            f(a);
            f(b);
            f(c);
        }
        E::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            depth_ref,
            ..
        } => {
            f(image);
            f(sampler);
            f(coordinate);
            [array_index, offset, depth_ref]
                .into_iter()
                .flatten()
                .for_each(f);
        }
        E::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => {
            f(image);
            f(coordinate);
            [array_index, sample, level]
                .into_iter()
                .flatten()
                .for_each(f);
        }
        E::ImageQuery { image, .. } => f(image),
        E::RayQueryVertexPositions { query, .. } | E::RayQueryGetIntersection { query, .. } => {
            f(query)
        }
        E::Literal(_)
        | E::Constant(_)
        | E::Override(_)
        | E::ZeroValue(_)
        | E::FunctionArgument(_)
        | E::GlobalVariable(_)
        | E::LocalVariable(_)
        | E::CallResult(_)
        | E::AtomicResult { .. }
        | E::WorkGroupUniformLoadResult { .. }
        | E::RayQueryProceedResult
        | E::SubgroupBallotResult
        | E::SubgroupOperationResult { .. } => {}
    }
}

/// Calls `f` with every expression operand of the statements of `block`, and how it is used.
/// (Statements the simulator does not run count their operands as [`User::Statement`].)
fn block_uses(block: &naga::Block, f: &mut impl FnMut(Handle<Expression>, User)) {
    use Statement as S;
    let stmt = User::Statement;
    for s in block.iter() {
        match *s {
            S::Emit(_) | S::Break | S::Continue | S::Kill => {}
            S::ControlBarrier(_) | S::MemoryBarrier(_) => {}
            S::Block(ref b) => block_uses(b, f),
            S::If {
                condition,
                ref accept,
                ref reject,
            } => {
                f(condition, stmt);
                block_uses(accept, f);
                block_uses(reject, f);
            }
            S::Switch {
                selector,
                ref cases,
            } => {
                f(selector, stmt);
                for c in cases {
                    block_uses(&c.body, f);
                }
            }
            S::Loop {
                ref body,
                ref continuing,
                break_if,
            } => {
                block_uses(body, f);
                block_uses(continuing, f);
                if let Some(b) = break_if {
                    f(b, stmt);
                }
            }
            S::Return { value } => {
                if let Some(v) = value {
                    f(v, stmt);
                }
            }
            S::Store { pointer, value } => {
                f(pointer, User::StorePointer { value });
                f(value, User::Stored { pointer });
            }
            S::Atomic {
                pointer,
                ref fun,
                value,
                ..
            } => {
                f(pointer, stmt);
                f(value, stmt);
                if let naga::AtomicFunction::Exchange { compare: Some(c) } = *fun {
                    f(c, stmt);
                }
            }
            S::WorkGroupUniformLoad { pointer, .. } => f(pointer, stmt),
            S::Call {
                function,
                ref arguments,
                ..
            } => {
                for (index, &a) in arguments.iter().enumerate() {
                    let function = function.index();
                    f(a, User::Argument { function, index });
                }
            }
            S::SubgroupBallot { predicate, .. } => {
                if let Some(p) = predicate {
                    f(p, stmt);
                }
            }
            S::SubgroupGather {
                ref mode, argument, ..
            } => {
                f(argument, stmt);
                match *mode {
                    naga::GatherMode::Broadcast(i)
                    | naga::GatherMode::Shuffle(i)
                    | naga::GatherMode::ShuffleDown(i)
                    | naga::GatherMode::ShuffleUp(i)
                    | naga::GatherMode::ShuffleXor(i)
                    | naga::GatherMode::QuadBroadcast(i) => f(i, stmt),
                    naga::GatherMode::BroadcastFirst | naga::GatherMode::QuadSwap(_) => {}
                }
            }
            S::SubgroupCollectiveOperation { argument, .. } => f(argument, stmt),
            S::CooperativeStore { target, ref data } => {
                f(target, stmt);
                f(data.pointer, stmt);
                f(data.stride, stmt);
            }
            S::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => {
                f(image, stmt);
                f(coordinate, stmt);
                f(value, stmt);
                if let Some(a) = array_index {
                    f(a, stmt);
                }
            }
            S::ImageAtomic {
                image,
                coordinate,
                array_index,
                value,
                ..
            } => {
                f(image, stmt);
                f(coordinate, stmt);
                f(value, stmt);
                if let Some(a) = array_index {
                    f(a, stmt);
                }
            }
            S::RayQuery { query, .. } => f(query, stmt),
            S::RayPipelineFunction(_) => {}
        }
    }
}
