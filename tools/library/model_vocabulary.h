// Which WordPiece vocabulary `run --pairs` tokenizes with, in the order a user expects: the one named
// with --vocab; else the checkpoint's own vocab.txt that neuron-build recorded (as from_pretrained(DIR)
// takes the tokenizer from the checkpoint directory); else the uncased BERT vocabulary of shared/data,
// which every Google uncased BERT (tiny to large) uses.
#pragma once

#include <filesystem>
#include <string>

#include "isa/container.h"
#include "tokenizer/wordpiece_vocab.h"

namespace nsim::library {

std::filesystem::path default_vocabulary_path();

// The path in that order. Error when the checkpoint's recorded vocabulary is gone.
std::filesystem::path model_vocabulary_path(const isa::Container& program, const std::string& vocab_option);

// Error (one line) for a vocabulary that is missing, unreadable, or with ids past the model's
// word table (metadata vocab_size).
kernels::WordPieceVocab model_vocabulary(const isa::Container& program, const std::string& vocab_option);

}  // namespace nsim::library
