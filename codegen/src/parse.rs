//! Reading s-expressions into a [`Pool`] through the canonicalising constructors.
//!
//! Grammar: a number (`2`, `-1.5`, `1/3`, `1e-3`), a symbol name, or `(head arg…)` with heads
//! `+ - * / ^ sqrt atan2 min max < <= > >= if` and the unary functions of [`Func::ALL`]
//! (`sin cos tan exp ln abs asin acos atan sinh cosh tanh`). `-` with one argument
//! negates; `+` and `*` take any number of arguments. Symbols must have been declared in the
//! pool (a model's coordinates, velocities, parameters and `t`); anything else is an error that
//! names the offending token, never a panic.

use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Func, Pool};

/// Why an s-expression could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A name that is not a declared symbol.
    #[error("unknown symbol `{name}` at byte {offset}")]
    UnknownSymbol {
        /// The name.
        name: String,
        /// Byte offset in the input.
        offset: usize,
    },
    /// A head that is not a known function.
    #[error("unknown function `{name}` at byte {offset}")]
    UnknownFunction {
        /// The head.
        name: String,
        /// Byte offset in the input.
        offset: usize,
    },
    /// A function applied to the wrong number of arguments.
    #[error("`{name}` takes {expected} argument(s), got {found} (at byte {offset})")]
    Arity {
        /// The head.
        name: String,
        /// How many it takes.
        expected: &'static str,
        /// How many it got.
        found: usize,
        /// Byte offset in the input.
        offset: usize,
    },
    /// A constant that is not a finite number.
    #[error("non-finite constant `{text}` at byte {offset}")]
    NonFinite {
        /// The token.
        text: String,
        /// Byte offset in the input.
        offset: usize,
    },
    /// Unbalanced parentheses, trailing input or an empty list.
    #[error("malformed s-expression at byte {offset}: {message}")]
    Syntax {
        /// What is wrong.
        message: &'static str,
        /// Byte offset in the input.
        offset: usize,
    },
}

impl Pool {
    /// Parse one s-expression whose symbols are already declared.
    pub fn parse(&mut self, text: &str) -> Result<ExprId, ParseError> {
        let tokens = tokenize(text);
        let mut pos = 0;
        let e = self.parse_at(&tokens, &mut pos, text.len())?;
        match tokens.get(pos) {
            None => Ok(e),
            Some(&(offset, _)) => Err(ParseError::Syntax {
                message: "trailing input",
                offset,
            }),
        }
    }

    fn parse_at(
        &mut self,
        tokens: &[(usize, &str)],
        pos: &mut usize,
        end: usize,
    ) -> Result<ExprId, ParseError> {
        let Some(&(offset, tok)) = tokens.get(*pos) else {
            return Err(ParseError::Syntax {
                message: "unexpected end of input",
                offset: end,
            });
        };
        *pos += 1;
        match tok {
            ")" => Err(ParseError::Syntax {
                message: "unexpected `)`",
                offset,
            }),
            "(" => {
                let Some(&(head_offset, head)) = tokens.get(*pos) else {
                    return Err(ParseError::Syntax {
                        message: "unexpected end of input",
                        offset: end,
                    });
                };
                if head == "(" || head == ")" {
                    return Err(ParseError::Syntax {
                        message: "a list must start with a function name",
                        offset: head_offset,
                    });
                }
                *pos += 1;
                let mut args = Vec::new();
                loop {
                    match tokens.get(*pos) {
                        Some(&(_, ")")) => {
                            *pos += 1;
                            break;
                        }
                        Some(_) => args.push(self.parse_at(tokens, pos, end)?),
                        None => {
                            return Err(ParseError::Syntax {
                                message: "missing `)`",
                                offset: end,
                            });
                        }
                    }
                }
                self.apply(head, &args, head_offset)
            }
            atom => self.atom(atom, offset),
        }
    }

    fn atom(&mut self, tok: &str, offset: usize) -> Result<ExprId, ParseError> {
        let unsigned = tok.strip_prefix(['-', '+']).unwrap_or(tok);
        let non_finite_word = ["inf", "infinity", "nan"]
            .iter()
            .any(|w| unsigned.eq_ignore_ascii_case(w));
        if non_finite_word {
            return Err(ParseError::NonFinite {
                text: tok.to_string(),
                offset,
            });
        }
        if unsigned.len() < tok.len()
            && !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        {
            let message = "a leading sign belongs to numbers only; write `(- x)` to negate";
            return Err(ParseError::Syntax { message, offset });
        }
        if unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let value = match tok.split_once('/') {
                Some((p, q)) => match (p.parse::<i64>(), q.parse::<i64>()) {
                    (Ok(p), Ok(q)) => Number::rational(p, q),
                    _ => None,
                },
                None => tok.parse::<f64>().ok().and_then(Number::from_f64),
            };
            return match value {
                Some(n) => Ok(self.num(n)),
                None => Err(ParseError::NonFinite {
                    text: tok.to_string(),
                    offset,
                }),
            };
        }
        match self.lookup_symbol(tok) {
            Some(s) => Ok(self.intern(crate::pool::Node::Sym(s))),
            None => Err(ParseError::UnknownSymbol {
                name: tok.to_string(),
                offset,
            }),
        }
    }

    fn apply(&mut self, head: &str, args: &[ExprId], offset: usize) -> Result<ExprId, ParseError> {
        let arity = |expected: &'static str, ok: bool| -> Result<(), ParseError> {
            if ok {
                Ok(())
            } else {
                Err(ParseError::Arity {
                    name: head.to_string(),
                    expected,
                    found: args.len(),
                    offset,
                })
            }
        };
        if let Some(f) = Func::from_name(head) {
            arity("1", args.len() == 1)?;
            return Ok(self.func(f, args[0]));
        }
        let cmp = match head {
            "<" => Some(CmpOp::Lt),
            "<=" => Some(CmpOp::Le),
            ">" => Some(CmpOp::Gt),
            ">=" => Some(CmpOp::Ge),
            _ => None,
        };
        if let Some(op) = cmp {
            arity("2", args.len() == 2)?;
            return Ok(self.cmp(op, args[0], args[1]));
        }
        match head {
            "+" => Ok(self.add(args)),
            "*" => Ok(self.mul(args)),
            "-" if args.len() == 1 => Ok(self.neg(args[0])),
            "-" => {
                arity("1 or 2", args.len() == 2)?;
                Ok(self.sub(args[0], args[1]))
            }
            "/" => {
                arity("2", args.len() == 2)?;
                Ok(self.div(args[0], args[1]))
            }
            "^" => {
                arity("2", args.len() == 2)?;
                Ok(self.pow(args[0], args[1]))
            }
            "sqrt" => {
                arity("1", args.len() == 1)?;
                Ok(self.sqrt(args[0]))
            }
            "atan2" | "min" | "max" => {
                arity("2", args.len() == 2)?;
                Ok(match head {
                    "atan2" => self.atan2(args[0], args[1]),
                    "min" => self.min(args[0], args[1]),
                    _ => self.max(args[0], args[1]),
                })
            }
            "if" => {
                arity("3", args.len() == 3)?;
                Ok(self.select(args[0], args[1], args[2]))
            }
            _ => Err(ParseError::UnknownFunction {
                name: head.to_string(),
                offset,
            }),
        }
    }
}

fn tokenize(text: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let delimiter = c.is_whitespace() || c == '(' || c == ')';
        if delimiter {
            if let Some(s) = start.take() {
                tokens.push((s, &text[s..i]));
            }
            if c != ' ' && !c.is_whitespace() {
                tokens.push((i, &text[i..i + 1]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        tokens.push((s, &text[s..]));
    }
    tokens
}
