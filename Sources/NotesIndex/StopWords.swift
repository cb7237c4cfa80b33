/// Common English words that a whole question may contain but that say nothing about what
/// it asks ("how did the whaling industry decline": only "whaling", "industry", "decline"
/// carry the question). A plain-words query leaves them out of its match; a query that uses
/// operators or phrases keeps every word it was given.
enum StopWords {
    static func contains(_ word: String) -> Bool {
        words.contains(word.lowercased())
    }

    static let words: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
        "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by",
        "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "else",
        "etc", "ever",
        "few", "for", "from", "further", "get", "gets", "getting", "got", "had", "has", "have",
        "having", "he",
        "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into",
        "is",
        "it", "its", "itself", "just", "let", "lets", "me", "might", "more", "most", "much", "must",
        "my",
        "myself", "need", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or",
        "other",
        "our", "ours", "ourselves", "out", "over", "own", "please", "same", "shall", "she",
        "should", "so",
        "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
        "there",
        "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon",
        "us", "very",
        "via", "want", "was", "way", "we", "were", "what", "whats", "when", "where", "which",
        "while", "who",
        "whom", "whose", "why", "will", "with", "within", "without", "would", "you", "your",
        "yours",
        "yourself", "yourselves", "i'm", "it's", "what's", "don't", "doesn't", "can't", "isn't",
    ]
}
