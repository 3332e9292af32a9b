//! The error of the project's small expression languages (experiment
//! expressions, tuning constraints): one type, so that every language
//! counts its positions the same way, as 1-based columns in characters.

/// A parse or evaluation error; `column` is 1-based, in characters of the
/// expression text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ExprError {
    pub column: usize,
    pub message: String,
}

/// `Err` of an [`ExprError`] at `column`.
pub fn fail<T>(column: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        column,
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_column_first() {
        let e: Result<(), _> = fail(3, "division by zero");
        assert_eq!(
            e.map_err(|e| e.to_string()),
            Err("column 3: division by zero".to_string())
        );
    }
}
